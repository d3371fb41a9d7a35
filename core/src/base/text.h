// Text: builds a message the way an std::ostringstream would for strings and
// integers — `Text t; t << "node " << id << " wrong"; t.str()` — without
// iostreams. The core's only stream uses were such messages and two number
// formats; dropping them drops libc++'s locale and stream machinery from the
// WebAssembly module (about 100 KB, ~30 KB gzip of the page).
// Internal to core/src.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>

namespace prefixroute {

/// Appends strings and integers; str() is the text so far. Each append is
/// amortised O(length appended).
class Text {
 public:
  Text& operator<<(std::string_view s) {
    text_ += s;
    return *this;
  }
  /// Integers as decimal digits, exactly as operator<< prints them (never as characters).
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, char> && !std::is_same_v<T, bool>, int> = 0>
  Text& operator<<(T v) {
    text_ += std::to_string(v);
    return *this;
  }
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

}  // namespace prefixroute
