// Stream values in RDB (rdb_stream.h). Layout of the value, in order:
//   nodes: len N, then N x (string: 16-byte master ID key, string: node listpack)
//   len length, len last_id.ms, len last_id.seq
//   [19, 21] len first_id.ms/seq, len max_deleted.ms/seq, len entries_added
//   len groups, then per group: string name, len last_id.ms/seq, [19, 21] len entries_read,
//     len PEL size, PEL x (16 raw ID bytes, u64 LE delivery time ms, len delivery count),
//     len consumers, per consumer: string name, u64 LE seen time, [21] u64 LE active time,
//     len PEL size, PEL x 16 raw ID bytes (the NACK is the group's).
#include "persistence/rdb_stream.h"

#include <memory>
#include <string>

#include "persistence/rdb_format.h"

namespace keel {
namespace {

void put_id_raw(RdbOut& out, StreamID id) {
  uint8_t k[16];
  id.encode(k);
  out.put(k, 16);
}

StreamID read_id_raw(RdbIn& in) {
  uint8_t k[16];
  in.read(k, 16);
  return StreamID::decode(k);
}

// An integer element of a node (Redis stores them as integers; digits are accepted too).
bool lp_int_checked(const Listpack& lp, LpPos p, int64_t* v) {
  if (p == kLpNone) return false;
  const LpEntry e = lp.get(p);
  if (e.is_int) {
    *v = e.ival;
    return true;
  }
  return parse_int64(e.sval, v);
}

// Walks one node (already validated as a listpack) as the stream code will: the master entry,
// then each entry's flags, ID deltas, fields and lp-count. Checks the counters against the
// flags and that IDs ascend from `*prev` (updated). Returns an error text or nullptr.
const char* check_node(const Listpack& lp, StreamID master, StreamID* prev, bool* have_prev,
                       int64_t* live_out) {
  LpPos p = lp.first();
  int64_t count, deleted, mf;
  if (!lp_int_checked(lp, p, &count) || count < 0) return "Stream node master count is not valid";
  p = lp.next(p);
  if (!lp_int_checked(lp, p, &deleted) || deleted < 0) return "Stream node deleted count is not valid";
  p = lp.next(p);
  if (!lp_int_checked(lp, p, &mf) || mf < 0) return "Stream node master fields count is not valid";
  for (int64_t i = 0; i <= mf; i++) {
    p = lp.next(p);
    if (p == kLpNone) return "Stream node master entry is truncated";
  }
  int64_t zero;
  if (!lp_int_checked(lp, p, &zero) || zero != 0) return "Stream node master entry terminator is not 0";
  p = lp.next(p);
  int64_t live = 0, dead = 0;
  while (p != kLpNone) {
    int64_t flags, msd, seqd;
    if (!lp_int_checked(lp, p, &flags) || flags < 0 || flags > 3) return "Stream entry flags are not valid";
    p = lp.next(p);
    if (!lp_int_checked(lp, p, &msd)) return "Stream entry ID is not valid";
    p = lp.next(p);
    if (!lp_int_checked(lp, p, &seqd)) return "Stream entry ID is not valid";
    p = lp.next(p);
    int64_t nf = mf, items = mf, expect = mf + 3;
    if (!(flags & kStreamFlagSameFields)) {
      if (!lp_int_checked(lp, p, &nf) || nf < 0 || nf > (int64_t{1} << 30)) return "Stream entry field count is not valid";
      p = lp.next(p);
      items = 2 * nf;
      expect = items + 4;
    }
    if (nf == 0) return "Stream entry has no fields";
    for (int64_t i = 0; i < items; i++) {
      if (p == kLpNone) return "Stream entry is truncated";
      p = lp.next(p);
    }
    int64_t lpc;
    if (!lp_int_checked(lp, p, &lpc) || lpc != expect) return "Stream entry lp-count is not valid";
    p = lp.next(p);
    const StreamID id{master.ms + static_cast<uint64_t>(msd), master.seq + static_cast<uint64_t>(seqd)};
    if (*have_prev && id <= *prev) return "Stream entry IDs are not ascending";
    *prev = id;
    *have_prev = true;
    if (flags & kStreamFlagDeleted) {
      dead++;
    } else {
      live++;
    }
  }
  if (live != count || dead != deleted) return "Stream node counters do not match its entries";
  if (live + dead == 0) return "Empty listpack inside stream";
  *live_out = live;
  return nullptr;
}

}  // namespace

int rdb_stream_type_for(int version) { return version >= 11 ? kRdbStreamListpacks3 : kRdbStreamListpacks2; }

void rdb_write_stream(RdbOut& out, const Stream& s, int type, bool compress) {
  out.put_len(s.rax.size());
  s.rax.for_each([&](std::string_view key, void* v) {
    out.put_string(key, false);
    ListpackView lp(v);
    out.put_blob(lp->data(), lp->bytes(), compress);
  });
  out.put_len(s.length);
  out.put_len(s.last_id.ms);
  out.put_len(s.last_id.seq);
  if (type >= kRdbStreamListpacks2) {
    out.put_len(s.first_id.ms);
    out.put_len(s.first_id.seq);
    out.put_len(s.max_deleted_id.ms);
    out.put_len(s.max_deleted_id.seq);
    out.put_len(s.entries_added);
  }
  out.put_len(s.group_count());
  if (!s.cgroups) return;
  for (const auto& [name, g] : *s.cgroups) {
    out.put_string(name, compress);
    out.put_len(g->last_id.ms);
    out.put_len(g->last_id.seq);
    if (type >= kRdbStreamListpacks2) out.put_len(static_cast<uint64_t>(g->entries_read));
    out.put_len(g->pel.size());
    for (const auto& [id, nack] : g->pel) {
      put_id_raw(out, id);
      out.put_u64_le(static_cast<uint64_t>(nack->delivery_time));
      out.put_len(nack->delivery_count);
    }
    out.put_len(g->consumers.size());
    for (const auto& [cname, c] : g->consumers) {
      out.put_string(cname, compress);
      out.put_u64_le(static_cast<uint64_t>(c->seen_time));
      if (type >= kRdbStreamListpacks3) out.put_u64_le(static_cast<uint64_t>(c->active_time));
      out.put_len(c->pel.size());
      for (const auto& [id, nack] : c->pel) put_id_raw(out, id);
    }
  }
}

std::unique_ptr<Stream> rdb_read_stream(RdbIn& in, int type, bool deep) {
  auto s = std::make_unique<Stream>();
  uint64_t nodes = in.len();
  std::string key;
  StreamID prev;
  bool have_prev = false;
  uint64_t live_total = 0;
  while (nodes--) {
    in.string(key);
    if (key.size() != 16) in.fail("Stream node key entry is not the size of a stream ID");
    size_t n;
    MallocPtr b = in.blob(&n);
    if (!listpack_validate(b.get(), n, /*deep=*/true)) in.fail("Stream listpack integrity check failed.");
    Listpack lp = Listpack::adopt(b.release());
    if (lp.empty()) in.fail("Empty listpack inside stream");
    const StreamID master = StreamID::decode(reinterpret_cast<const uint8_t*>(key.data()));
    if (have_prev && master <= prev) in.fail("Stream node keys are not ascending");
    int64_t live = 0;
    if (const char* why = check_node(lp, master, &prev, &have_prev, &live)) in.fail(why);
    live_total += static_cast<uint64_t>(live);
    if (!s->rax.insert(key, const_cast<uint8_t*>(lp.data()))) in.fail("Listpack re-added with existing key");
    (void)lp.release();  // the tree owns it now
  }
  s->length = in.len();
  s->last_id.ms = in.len();
  s->last_id.seq = in.len();
  if (type >= kRdbStreamListpacks2) {
    s->first_id.ms = in.len();
    s->first_id.seq = in.len();
    s->max_deleted_id.ms = in.len();
    s->max_deleted_id.seq = in.len();
    s->entries_added = in.len();
  } else {
    s->entries_added = s->length;
    if (!s->first_entry_id(&s->first_id)) s->first_id = StreamID{};
  }
  if (s->length != live_total) in.fail("Stream length inconsistent with rax entries");
  if (have_prev && s->last_id < prev) in.fail("Stream last ID is below its last entry");
  uint64_t groups = in.len();
  std::string name;
  while (groups--) {
    in.string(name);
    StreamID gid;
    gid.ms = in.len();
    gid.seq = in.len();
    int64_t entries_read;
    if (type >= kRdbStreamListpacks2) {
      entries_read = static_cast<int64_t>(in.len());
    } else {
      entries_read = s->estimate_entries_read(gid);
    }
    StreamCG* g = s->create_group(name, gid, entries_read);
    if (!g) in.fail("Duplicated consumer group name " + name);
    uint64_t pel = in.len();
    while (pel--) {
      const StreamID id = read_id_raw(in);
      // Owned here until the group's PEL holds it: a truncated payload fails (throws) in
      // the reads below.
      auto nack = std::make_unique<StreamNack>();
      nack->delivery_time = static_cast<int64_t>(in.u64_le());
      nack->delivery_count = in.len();
      if (!g->pel.emplace(id, nack.get()).second) {
        in.fail("Duplicated global PEL entry loading stream consumer group");
      }
      (void)nack.release();
    }
    uint64_t consumers = in.len();
    while (consumers--) {
      in.string(name);
      StreamConsumer* c = stream_create_consumer(*g, name, 0);
      if (!c) in.fail("Duplicate stream consumer detected.");
      c->seen_time = static_cast<int64_t>(in.u64_le());
      c->active_time = type >= kRdbStreamListpacks3 ? static_cast<int64_t>(in.u64_le()) : c->seen_time;
      uint64_t cpel = in.len();
      while (cpel--) {
        const StreamID id = read_id_raw(in);
        auto it = g->pel.find(id);
        if (it == g->pel.end()) in.fail("Consumer entry not found in group global PEL");
        if (it->second->consumer != nullptr) in.fail("Duplicated consumer PEL entry loading a stream consumer group");
        it->second->consumer = c;
        c->pel.emplace(id, it->second);
      }
    }
    // Every pending entry must belong to a consumer (Redis checks this only deeply; Keel's
    // XPENDING and XCLAIM read the owner, so always).
    for (const auto& [id, nack] : g->pel) {
      if (nack->consumer == nullptr) in.fail("Stream CG PEL entry without consumer");
    }
  }
  (void)deep;
  return s;
}

}  // namespace keel
