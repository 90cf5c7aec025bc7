// Fuzz target: protocol/resp_parser.cc (RequestParser), driven the way server/client.cc drives it.
//
// Input layout:
//   byte 0   flags: bit0 authenticated, bit1 proto-max-bulk-len 40 instead of 512 MB,
//            bit2 "inflate" (the stream is cut after one of its bytes, which is repeated 70000
//            times, to reach the 64 KB inline / count-string limits), bits 4-7 block after every
//            Nth command (0: never)
//   byte 1   number of listed chunk sizes (mod 17), then that many bytes: the chunk sizes
//   1 byte   (inflate only) the position of the inflated byte
//   rest     the byte stream a client sends
// The stream is delivered in the listed chunks (a 0 is a read that brought nothing), the rest
// in one final chunk. After each chunk the harness runs client.cc's loop: parse until not a
// command, then drop the consumed prefix and rebase() the parser. A "blocking" command ends
// processing early, resets the parser and keeps the rest of the input, as a blocked client does.
//
// Checked:
//   - each parse() call sees a heap copy of exactly `len` bytes: any read past the end is an
//     ASan report; nothing before `pos` (earlier commands' arguments) or after the new `pos`
//     (later commands) is modified;
//   - a command has at least one argument, every argument lies inside the bytes it consumed;
//   - an error is "Protocol error: ..." and sticky: later calls, even with more data, return the
//     same error and touch nothing;
//   - the commands and the outcome do not depend on the chunking: the same stream parsed in one
//     piece gives the same commands and the same error (except that a chunked run may hit a
//     64 KB "too big" limit earlier, when the newline had not arrived yet).
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "protocol/resp_parser.h"

using keel::RequestParser;
using keel::fuzz::Input;

namespace {

using Command = std::vector<std::string>;
using Result = RequestParser::Result;

struct Outcome {
  std::vector<Command> commands;
  bool error = false;
  std::string error_text;
};

bool too_big_error(std::string_view e) { return e.find("too big") != std::string_view::npos; }

// One parse() call on an exact-size heap copy of q, with the invariants above. Copies the
// (possibly unescaped) bytes back into q.
Result checked_parse(RequestParser& parser, std::string& q, size_t& pos, bool auth, Command* out) {
  const size_t len = q.size();
  const size_t old_pos = pos;
  FUZZ_CHECK(pos <= len);
  std::unique_ptr<char[]> buf(new char[len ? len : 1]);
  if (len) std::memcpy(buf.get(), q.data(), len);
  const Result r = parser.parse(buf.get(), len, pos, auth);
  FUZZ_CHECK(pos <= len);
  switch (r) {
    case Result::kCommand: {
      FUZZ_CHECK(pos > old_pos);
      FUZZ_CHECK(!parser.args().empty());
      FUZZ_CHECK(!parser.in_command());
      for (const keel::ArgSpan& a : parser.args()) {
        FUZZ_CHECK(a.off >= old_pos && a.len <= pos - a.off);
        out->emplace_back(buf.get() + a.off, a.len);
      }
      // Only this command's bytes may have been rewritten (inline unescaping).
      FUZZ_CHECK(std::memcmp(buf.get(), q.data(), old_pos) == 0);
      FUZZ_CHECK(std::memcmp(buf.get() + pos, q.data() + pos, len - pos) == 0);
      break;
    }
    case Result::kNeedMore:
      // Skipped empty lines / "*0" advance pos but rewrite nothing.
      FUZZ_CHECK(len == 0 || std::memcmp(buf.get(), q.data(), len) == 0);
      if (parser.in_command()) {
        FUZZ_CHECK(parser.bytes_missing(len) <= static_cast<size_t>(keel::protocol_limits().proto_max_bulk_len) + 2);
      }
      break;
    case Result::kError: {
      FUZZ_CHECK(parser.error().substr(0, 16) == "Protocol error: ");
      // pos may have moved past skipped empty lines or "*0" before the bad command.
      FUZZ_CHECK(std::memcmp(buf.get(), q.data(), old_pos) == 0);
      break;
    }
  }
  if (len) std::memcpy(q.data(), buf.get(), len);
  return r;
}

// A parser that failed stays failed: same error, nothing consumed or rewritten.
void check_sticky(RequestParser& parser, std::string q, size_t pos, bool auth) {
  const std::string err(parser.error());
  for (int round = 0; round < 2; round++) {
    const std::string before = q;
    const size_t old_pos = pos;
    Command unused;
    FUZZ_CHECK(checked_parse(parser, q, pos, auth, &unused) == Result::kError);
    FUZZ_CHECK(parser.error() == err);
    FUZZ_CHECK(pos == old_pos && q == before);
    q += "\r\nPING\r\n*1\r\n$4\r\nPING\r\n";  // more data must not revive it
  }
}

Outcome parse_whole(const std::string& stream, bool auth) {
  Outcome o;
  std::string q = stream;
  size_t pos = 0;
  RequestParser parser;
  for (;;) {
    Command c;
    const Result r = checked_parse(parser, q, pos, auth, &c);
    if (r == Result::kCommand) {
      o.commands.push_back(std::move(c));
      continue;
    }
    if (r == Result::kError) {
      o.error = true;
      o.error_text = parser.error();
      check_sticky(parser, q, pos, auth);
    }
    return o;
  }
}

struct Client {
  std::string query;
  size_t qpos = 0;
  RequestParser parser;
  bool auth = true;
  unsigned block_every = 0;  // 0: never
  unsigned executed = 0;
  bool closed = false;
  Outcome o;

  // client.cc's process_input; returns false if a "blocking" command stopped it early.
  bool process_input() {
    bool blocked = false;
    for (;;) {
      Command c;
      const Result r = checked_parse(parser, query, qpos, auth, &c);
      if (r == Result::kCommand) {
        o.commands.push_back(std::move(c));
        if (block_every && ++executed % block_every == 0) {
          // The block ends the batch; on resume the parser restarts after this command.
          parser = RequestParser();
          blocked = true;
          break;
        }
        continue;
      }
      if (r == Result::kError) {
        o.error = true;
        o.error_text = parser.error();
        check_sticky(parser, query, qpos, auth);
        closed = true;
        return true;
      }
      break;  // kNeedMore
    }
    if (qpos == query.size()) {
      query.clear();
      parser.rebase(qpos);
      qpos = 0;
    } else if (qpos > 0) {
      query.erase(0, qpos);
      parser.rebase(qpos);
      qpos = 0;
    }
    return !blocked;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  const uint8_t flags = in.u8();
  const bool auth = flags & 1;
  const bool small_bulk = flags & 2;
  const bool inflate = flags & 4;
  std::vector<size_t> chunks(in.u8() % 17);
  for (size_t& c : chunks) c = in.u8();
  const size_t inflate_at = inflate ? in.u8() : 0;
  std::string stream(in.rest());
  if (inflate && !stream.empty()) {
    // The run ends the stream: it exists to reach the "too big" limits, and a 70 KB inline line
    // after it would only make every execution slow.
    const size_t at = inflate_at % stream.size();
    stream.resize(at + 1);
    stream.append(70000, stream[at]);
  }
  keel::protocol_limits().proto_max_bulk_len = small_bulk ? 40 : 512ll * 1024 * 1024;

  const Outcome whole = parse_whole(stream, auth);

  Client client;
  client.auth = auth;
  client.block_every = flags >> 4;
  size_t off = 0;
  auto deliver = [&](size_t n) {
    if (client.closed) return;
    if (n > stream.size() - off) n = stream.size() - off;
    client.query.append(stream, off, n);
    off += n;
    client.process_input();
  };
  for (size_t c : chunks) deliver(c);
  deliver(stream.size() - off);
  // A blocked client resumes with the input it kept; no new bytes arrive meanwhile.
  for (int guard = 0; !client.closed; guard++) {
    FUZZ_CHECK(guard <= 1 << 20);
    if (client.process_input()) break;
  }

  const Outcome& chunked = client.o;
  if (chunked.error && !whole.error && too_big_error(chunked.error_text)) {
    FUZZ_CHECK(chunked.commands.size() <= whole.commands.size());
    for (size_t i = 0; i < chunked.commands.size(); i++) FUZZ_CHECK(chunked.commands[i] == whole.commands[i]);
    return 0;
  }
  if (chunked.error && whole.error && chunked.error_text != whole.error_text &&
      too_big_error(chunked.error_text) && chunked.commands.size() <= whole.commands.size()) {
    return 0;
  }
  if (chunked.commands != whole.commands || chunked.error != whole.error ||
      chunked.error_text != whole.error_text) {
    std::fprintf(stderr, "chunked: %zu commands, error %d '%s'; whole: %zu commands, error %d '%s'\n",
                 chunked.commands.size(), chunked.error, chunked.error_text.c_str(),
                 whole.commands.size(), whole.error, whole.error_text.c_str());
    FUZZ_CHECK(false && "the chunking changed the result");
  }
  return 0;
}
