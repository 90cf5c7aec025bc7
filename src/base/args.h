// Redis's text forms of argument lists, shared by the config file parser (server/) and the AOF
// manifest (persistence/): splitting a line as sdssplitargs does, and quoting as sdscatrepr.
// Includes only the standard library.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace keel {

// Splits `line` as Redis's sdssplitargs: blanks separate words; "..." takes C escapes (\n \r
// \t \b \a \xHH, \ before anything else is that byte) and '...' only \'; a closing quote must
// be followed by a blank or the end. Fills *out (cleared first); false on unbalanced quotes.
bool split_args(std::string_view line, std::vector<std::string>* out);

// s in double quotes with Redis's escapes (sdscatrepr): \\ \" \n \r \t \a \b, \xHH for other
// unprintable bytes.
std::string quote_repr(std::string_view s);

// Whether a word must be written quoted to read back as itself (sdsneedsrepr): empty, or holding
// a blank, a quote, a backslash or an unprintable byte.
bool needs_repr(std::string_view s);

}  // namespace keel
