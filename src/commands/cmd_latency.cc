// LATENCY: the latency monitor's events (LATEST, HISTORY, RESET, GRAPH, DOCTOR) and the
// per-command latency histograms (HISTOGRAM). The data lives in commands/latency.{h,cc}.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <initializer_list>
#include <string>
#include <vector>

#include "commands/command.h"
#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "commands/latency.h"

namespace keel {

// Defined in cmd_server.cc.

namespace {

// LATENCY LATEST -> [[event, time of the latest sample, its latency, all-time max] ...]
void cmd_latency_latest(CommandContext& cx) {
  ReplyWriter& w = cx.reply();
  const auto& all = latency_monitor().all();
  w.array(all.size());
  for (const LatencyMonitor::Series* s : all) {
    const LatencySample& last = s->latest();
    w.array(4);
    w.bulk(s->name);
    w.integer(last.time);
    w.integer(last.ms);
    w.integer(s->max);
  }
}

// LATENCY HISTORY event -> [[time, latency] ...], oldest first; [] for an unknown event.
void cmd_latency_history(CommandContext& cx) {
  ReplyWriter& w = cx.reply();
  const LatencyMonitor::Series* s = latency_monitor().find(cx.arg(2));
  if (s == nullptr) return w.array(0);
  size_t n = 0;
  s->for_each([&](const LatencySample&) { n++; });
  w.array(n);
  s->for_each([&](const LatencySample& x) {
    w.array(2);
    w.integer(x.time);
    w.integer(x.ms);
  });
}

// LATENCY RESET [event ...] -> the number of event series dropped.
void cmd_latency_reset(CommandContext& cx) {
  cx.reply().integer(static_cast<int64_t>(latency_monitor().reset(cx.args().subspan(2))));
}

// How long ago, as a graph label: 12s, 5m, 3h, 2d.
std::string ago_label(int64_t elapsed) {
  char buf[32];
  if (elapsed < 0) elapsed = 0;
  if (elapsed < 60) {
    snprintf(buf, sizeof(buf), "%" PRId64 "s", elapsed);
  } else if (elapsed < 3600) {
    snprintf(buf, sizeof(buf), "%" PRId64 "m", elapsed / 60);
  } else if (elapsed < 86400) {
    snprintf(buf, sizeof(buf), "%" PRId64 "h", elapsed / 3600);
  } else {
    snprintf(buf, sizeof(buf), "%" PRId64 "d", elapsed / 86400);
  }
  return buf;
}

// The graph: a header with the extremes, a rule, then for every 80 samples a block of 4 rows
// where each sample is a column rising from the bottom ('|' a full cell, '_' half of one; the
// lowest sample gets a '_'), with its age written vertically under it.
std::string latency_graph(const LatencyMonitor::Series& s) {
  constexpr size_t kCols = 80;
  constexpr int kRows = 4;
  std::vector<LatencySample> samples;
  s.for_each([&](const LatencySample& x) { samples.push_back(x); });
  uint32_t lo = 0, hi = 0;
  for (size_t i = 0; i < samples.size(); i++) {
    if (i == 0 || samples[i].ms < lo) lo = samples[i].ms;
    if (i == 0 || samples[i].ms > hi) hi = samples[i].ms;
  }
  char head[256];
  snprintf(head, sizeof(head), "%s - high %u ms, low %u ms (all time high %u ms)\n", s.name.c_str(),
           hi, lo, s.max);
  std::string out = head;
  out.append(kCols, '-');
  out += '\n';
  const int64_t now = static_cast<int64_t>(time(nullptr));
  for (size_t from = 0; from < samples.size(); from += kCols) {
    const size_t to = std::min(samples.size(), from + kCols);
    std::vector<int> units;  // half-cells of each column, 1 .. 2 * kRows
    std::vector<std::string> labels;
    size_t label_rows = 0;
    for (size_t i = from; i < to; i++) {
      const double rel = hi > lo ? double(samples[i].ms - lo) / double(hi - lo) : 0.0;
      units.push_back(1 + static_cast<int>(std::lround(rel * (2 * kRows - 1))));
      labels.push_back(ago_label(now - samples[i].time));
      label_rows = std::max(label_rows, labels.back().size());
    }
    for (int row = kRows - 1; row >= 0; row--) {  // top row first
      for (int u : units) {
        const int cell = std::min(2, std::max(0, u - 2 * row));
        out += cell == 0 ? ' ' : cell == 1 ? '_' : '|';
      }
      out += '\n';
    }
    for (size_t r = 0; r < label_rows; r++) {
      for (const std::string& l : labels) out += r < l.size() ? l[r] : ' ';
      out += '\n';
    }
  }
  return out;
}

// LATENCY GRAPH event
void cmd_latency_graph(CommandContext& cx) {
  const LatencyMonitor::Series* s = latency_monitor().find(cx.arg(2));
  if (s == nullptr) {
    return cx.reply().error_fmt("ERR No samples available for event '%s'",
                                std::string(cx.arg(2)).c_str());
  }
  cx.reply().verbatim(latency_graph(*s));
}

// LATENCY DOCTOR: a plain-language summary of every event series and what usually causes it.
std::string latency_doctor_report() {
  const LatencyOptions& o = latency_options();
  const auto& all = latency_monitor().all();
  std::string out;
  if (all.empty()) {
    if (o.monitor_threshold_ms == 0) {
      return "The latency monitor is off (latency-monitor-threshold is 0), so there is nothing to "
             "analyse. Turn it on with CONFIG SET latency-monitor-threshold <milliseconds>: "
             "events slower than that are then recorded.\n";
    }
    return "No latency spike has been recorded since the server started (or since the last "
           "LATENCY RESET). Nothing to worry about.\n";
  }
  out = "Latency spikes were recorded by this server. Per event:\n\n";
  bool commands = false, expiry = false;
  int n = 0;
  for (const LatencyMonitor::Series* s : all) {
    std::vector<LatencySample> v;
    s->for_each([&](const LatencySample& x) { v.push_back(x); });
    double avg = 0;
    for (const LatencySample& x : v) avg += x.ms;
    avg = v.empty() ? 0 : avg / double(v.size());
    double dev = 0;
    for (const LatencySample& x : v) dev += std::fabs(double(x.ms) - avg);
    dev = v.empty() ? 0 : dev / double(v.size());
    const double period =
        v.size() > 1 ? double(v.back().time - v.front().time) / double(v.size() - 1) : 0.0;
    char line[512];
    snprintf(line, sizeof(line),
             "%d. %s: %zu spike(s), average %.0f ms (mean deviation %.0f ms), one every %.2f s "
             "on average. Highest ever: %u ms.\n",
             ++n, s->name.c_str(), v.size(), avg, dev, period, s->max);
    out += line;
    if (s->name == "command" || s->name == "fast-command") commands = true;
    if (s->name.rfind("expire", 0) == 0) expiry = true;
  }
  out += "\nWhat to look at:\n\n";
  if (commands) {
    out += "- Slow commands: SLOWLOG GET lists the commands that took longest. O(N) commands on "
           "big values (KEYS, SMEMBERS, LRANGE 0 -1, ZRANGE 0 -1, SORT, DEL of a huge key) are "
           "the usual cause.\n";
  }
  if (expiry) {
    out += "- Expiry: keys with a TTL are deleted by the server when they expire; a very large "
           "value takes long to free. Splitting big values into smaller keys helps.\n";
  }
  out += "- Check that the machine is not swapping and that no other process competes for the "
         "CPU the server runs on.\n";
  return out;
}

void cmd_latency_doctor(CommandContext& cx) { cx.reply().verbatim(latency_doctor_report()); }

// "get" or "config|get" -> its row, or null.
const CommandSpec* command_by_name(std::string_view name) {
  const size_t bar = name.find('|');
  if (bar == std::string_view::npos) return lookup_command(name);
  const CommandSpec* parent = lookup_command(name.substr(0, bar));
  if (parent == nullptr || parent->subcommands.empty()) return nullptr;
  return lookup_subcommand(*parent, name.substr(bar + 1));
}

void reply_histogram(ReplyWriter& w, const CommandSpec& c) {
  const LatencyHistogram& h = *c.stats->latency;
  w.bulk(c.full_name);
  w.map(2);
  w.bulk("calls");
  w.integer(static_cast<int64_t>(h.total()));
  w.bulk("histogram_usec");
  const auto buckets = h.log_buckets();
  w.map(buckets.size());
  for (const auto& [upper, count] : buckets) {
    w.integer(static_cast<int64_t>(upper));
    w.integer(static_cast<int64_t>(count));
  }
}

// LATENCY HISTOGRAM [command ...] -> {name: {calls: n, histogram_usec: {us: cumulative}}}.
// Unknown names and commands without samples are skipped; a container name stands for its
// subcommands; no name means every command with samples.
void cmd_latency_histogram(CommandContext& cx) {
  ReplyWriter& w = cx.reply();
  const size_t token = w.begin_deferred();
  size_t n = 0;
  auto add = [&](const CommandSpec& c) {
    if (c.stats->latency == nullptr || c.stats->latency->total() == 0) return;
    reply_histogram(w, c);
    n++;
  };
  auto add_tree = [&](const CommandSpec& c) {
    if (c.subcommands.empty()) return add(c);
    for (const CommandSpec& sub : c.subcommands) add(sub);
  };
  if (cx.argc() == 2) {
    for (const CommandSpec* c : all_commands()) add_tree(*c);
  } else {
    for (size_t i = 2; i < cx.argc(); i++) {
      if (const CommandSpec* c = command_by_name(cx.arg(i))) add_tree(*c);
    }
  }
  w.end_deferred_map(token, n);
}

void cmd_latency_help(CommandContext& cx) {
  reply_help(cx, "LATENCY",
             {"DOCTOR", "    Return a human readable latency analysis report.", "GRAPH <event>",
              "    Return an ASCII latency graph for the <event> class.", "HISTORY <event>",
              "    Return time-latency samples for the <event> class.", "LATEST",
              "    Return the latest latency samples for all events.", "RESET [<event> ...]",
              "    Reset latency data of one or more <event> classes.",
              "    (default: reset all data for all event classes)", "HISTOGRAM [COMMAND ...]",
              "    Return a cumulative distribution of latencies in the format of a histogram "
              "for the specified command names.",
              "    If no commands are specified then all histograms are replied."});
}

constexpr uint32_t kLatencyAdmin = kAdmin | kNoScript | kLoading | kStale;

CommandSpec kLatencySubcommands[] = {
    {.name = "doctor", .handler = cmd_latency_doctor, .arity = 2, .flags = kLatencyAdmin, .group = "server",
     .summary = "Returns a human-readable latency analysis report.", .since = "2.8.13", .complexity = "O(1)",
     .tips = "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {.name = "graph", .handler = cmd_latency_graph, .arity = 3, .flags = kLatencyAdmin, .group = "server",
     .summary = "Returns a latency graph for an event.", .since = "2.8.13", .complexity = "O(1)",
     .tips = "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {.name = "help", .handler = cmd_latency_help, .arity = 2, .flags = kLoading | kStale, .group = "server",
     .summary = "Returns helpful text about the different subcommands.", .since = "2.8.13", .complexity = "O(1)"},
    {.name = "histogram", .handler = cmd_latency_histogram, .arity = -2, .flags = kLatencyAdmin, .group = "server",
     .summary = "Returns the cumulative distribution of latencies of a subset or all commands.", .since = "7.0.0", .complexity = "O(N) where N is the number of commands with latency information being retrieved.",
     .tips = "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {.name = "history", .handler = cmd_latency_history, .arity = 3, .flags = kLatencyAdmin, .group = "server",
     .summary = "Returns timestamp-latency samples for an event.", .since = "2.8.13", .complexity = "O(1)",
     .tips = "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {.name = "latest", .handler = cmd_latency_latest, .arity = 2, .flags = kLatencyAdmin, .group = "server",
     .summary = "Returns the latest latency samples for all events.", .since = "2.8.13", .complexity = "O(1)",
     .tips = "nondeterministic_output request_policy:all_nodes response_policy:special"},
    {.name = "reset", .handler = cmd_latency_reset, .arity = -2, .flags = kLatencyAdmin, .group = "server",
     .summary = "Resets the latency data for one or more events.", .since = "2.8.13", .complexity = "O(1)",
     .tips = "request_policy:all_nodes response_policy:all_succeeded"},
};

CommandSpec kLatencyCommands[] = {
    {.name = "latency", .handler = nullptr, .arity = -2, .group = "server",
     .summary = "A container for latency diagnostics commands.", .since = "2.8.13", .complexity = "Depends on subcommand.",
     .subcommands = kLatencySubcommands},
};

}  // namespace

std::span<CommandSpec> latency_commands() { return kLatencyCommands; }

}  // namespace keel
