// The clipboard, with a way out when the browser refuses it (an insecure
// origin, a denied permission): the text is selected in a field instead, for
// the reader to copy by hand.

/** Copies text; falls back to selecting it in the given field when the clipboard API is refused. */
export async function copyText(text: string, fallbackField?: HTMLInputElement | HTMLTextAreaElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (fallbackField) {
      fallbackField.value = text;
      fallbackField.hidden = false;
      fallbackField.focus();
      fallbackField.select();
    }
    return false;
  }
}
