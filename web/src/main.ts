// The page's entry: its stylesheet, the error banner that catches whatever
// escapes, and the playground (page/playground.ts), started once.

import './ui/styles.css';
import './ui/touch.css';
import { Playground } from './page/playground';
import { byId } from './ui/dom';
import { installErrorBoundary, showProblem } from './ui/error-boundary';

installErrorBoundary(byId('problems'));
try {
  const app = new Playground();
  void app.start().catch((error: unknown) => showProblem(`The playground could not start: ${error instanceof Error ? error.message : String(error)}`));
} catch (error) {
  showProblem(`The playground could not start: ${error instanceof Error ? error.message : String(error)}`);
}
