// report_writers.hpp — the machine-readable (JSON) and visual (SVG) reports of gca-alloc.
//
//   json_report(m, reports)   the allocated module (tensors, placements, spill temporaries, per-memory
//                             peaks) and the spill figures of every pass, as one JSON document
//   svg_memory_map(m)         a self-contained SVG memory map: per function and memory, program points
//                             across, addresses up, one box per live interval of every placed tensor
//
// Both are deterministic (same module -> same bytes) and need nothing beyond the gca headers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gca/drivers/coloring_allocator.hpp>
#include <gca/ir/module.hpp>
#include <gca/ir/target.hpp>
#include <gca/ir/types.hpp>
#include <gca/linearize/linearize.hpp>
#include <gca/liveness/live_ranges.hpp>
#include <gca/report/model.hpp>
#include <gca/spill/fixpoint.hpp>

namespace gca_tools {

namespace report_detail {

// ----------------------------------------------------------------------------------------------------
// Text escaping

/// Length of the well-formed UTF-8 sequence starting at s[i], or 0 if there is none.
inline std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    cp = c & 0x1Fu;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    cp = c & 0x0Fu;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    cp = c & 0x07u;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3Fu);
  }
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF)
    return 0;
  return n;
}

/// A JSON string literal (quotes included). Ill-formed UTF-8 becomes U+FFFD, so the output is valid.
inline std::string json_string(std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string o;
  o.reserve(s.size() + 2);
  o += '"';
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': o += "\\\""; ++i; continue;
      case '\\': o += "\\\\"; ++i; continue;
      case '\b': o += "\\b"; ++i; continue;
      case '\f': o += "\\f"; ++i; continue;
      case '\n': o += "\\n"; ++i; continue;
      case '\r': o += "\\r"; ++i; continue;
      case '\t': o += "\\t"; ++i; continue;
      default: break;
    }
    if (c < 0x20) {
      o += "\\u00";
      o += hex[c >> 4];
      o += hex[c & 15];
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence(s, i);
    if (n == 0) {
      o += "\\ufffd";
      ++i;
    } else {
      o.append(s.substr(i, n));
      i += n;
    }
  }
  o += '"';
  return o;
}

/// XML character data / attribute value. Characters XML 1.0 forbids, and ill-formed UTF-8, become '?'.
inline std::string xml_text(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '&': o += "&amp;"; ++i; continue;
      case '<': o += "&lt;"; ++i; continue;
      case '>': o += "&gt;"; ++i; continue;
      case '"': o += "&quot;"; ++i; continue;
      case '\'': o += "&apos;"; ++i; continue;
      default: break;
    }
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      o += '?';
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence(s, i);
    if (n == 0) {
      o += '?';
      ++i;
    } else {
      o.append(s.substr(i, n));
      i += n;
    }
  }
  return o;
}

/// A minimal pretty-printing JSON writer: keys come out in the order they are written.
class json_writer {
 public:
  std::string out;

  json_writer& key(std::string_view k) {
    separate();
    out += json_string(k);
    out += ": ";
    after_key_ = true;
    return *this;
  }
  json_writer& begin_object() { return open('{'); }
  json_writer& end_object() { return close('}'); }
  json_writer& begin_array() { return open('['); }
  json_writer& end_array() { return close(']'); }
  json_writer& value(std::string_view s) { return raw(json_string(s)); }
  json_writer& value(const char* s) { return raw(json_string(s)); }
  json_writer& value(bool b) { return raw(b ? "true" : "false"); }
  json_writer& value(std::uint64_t v) { return raw(std::to_string(v)); }
  json_writer& value(std::uint32_t v) { return raw(std::to_string(v)); }
  json_writer& value(int v) { return raw(std::to_string(v)); }
  json_writer& null() { return raw("null"); }
  /// A short array of strings on one line.
  json_writer& strings(const std::vector<std::string>& v) {
    std::string s = "[";
    for (std::size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + json_string(v[k]);
    return raw(s + "]");
  }
  /// An already-formatted value (a one-line object, say).
  json_writer& raw(std::string_view v) {
    separate();
    out += v;
    return *this;
  }

 private:
  std::vector<bool> empty_;  // per open container: nothing written yet
  bool after_key_ = false;

  void newline() {
    out += '\n';
    out.append(2 * empty_.size(), ' ');
  }
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (empty_.empty()) return;
    if (!empty_.back()) out += ',';
    empty_.back() = false;
    newline();
  }
  json_writer& open(char c) {
    separate();
    out += c;
    empty_.push_back(true);
    return *this;
  }
  json_writer& close(char c) {
    const bool was_empty = empty_.back();
    empty_.pop_back();
    if (!was_empty) newline();
    out += c;
    return *this;
  }
};

// ----------------------------------------------------------------------------------------------------
// Facts shared by both reports

// The report model (roles from the tensors' origins, peaks, the chain's loops and moves) is the
// library's (gca/report/model.hpp); this file only prints it.
using gca::chain_facts;
using gca::loop_span;
using gca::memory_peak;
using gca::move_point;
using gca::peak_unit;
using gca::placed_end;
using gca::tensor_role;
using gca::tensor_roles;
using gca::to_string;

// ----------------------------------------------------------------------------------------------------
// Number formatting (locale-independent, deterministic)

inline std::string fixed(double v, int decimals = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

/// 13312 -> "13 KiB", 1536 -> "1.5 KiB", 100 -> "100 B".
inline std::string human_bytes(std::uint64_t b) {
  static constexpr const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return fixed(v, v < 10 && u > 0 ? 2 : 1) + " " + unit[u];
}

}  // namespace report_detail

// ======================================================================================================
// JSON

namespace report_detail {

/// A DRAM space's name, or null for the memories without address spaces.
inline void json_space(json_writer& j, gca::memory_type mem, gca::address_space sp) {
  if (mem == gca::memory_type::dram) j.value(gca::to_string(sp));
  else j.null();
}

inline void json_target(json_writer& j, const gca::target& t) {
  j.begin_object();
  j.key("name").value(t.name);
  j.key("sb_partitions").value(t.sb_partitions);
  j.key("sb_bytes").value(t.sb_bytes);
  j.key("sb_usable").value(t.sb_usable);
  j.key("psum_banks").value(t.psum_banks);
  j.key("psum_bank_bytes").value(t.psum_bank_bytes);
  j.key("psum_may_span_banks").value(t.psum_may_span_banks);
  j.key("dram_bytes").value(t.dram_bytes);
  j.key("registers").value(t.registers);
  j.end_object();
}

/// Per memory (and DRAM address space) of function f that holds tensors: the highest placed end, the
/// unit, the capacity, and how many tensors are (un)placed.
inline void json_peaks(json_writer& j, const gca::function& f, const gca::target& tgt) {
  j.begin_array();
  for (const memory_peak& p : gca::memory_peaks(f, tgt)) {
    j.begin_object();
    j.key("memory").value(gca::memory_name(tgt, p.memory));
    j.key("space");
    json_space(j, p.memory, p.space);
    j.key("peak").value(p.peak);
    j.key("unit").value(peak_unit(tgt, p.memory));
    j.key("capacity").value(p.capacity);
    j.key("tensors").value(static_cast<std::uint64_t>(p.tensors.size()));
    j.key("unplaced").value(static_cast<std::uint64_t>(p.unplaced));
    j.end_object();
  }
  j.end_array();
}

/// One tensor as one line of JSON (so a report of 10^5 tensors stays readable line by line).
inline std::string json_tensor_line(const gca::target& tgt, const gca::tensor& t, tensor_role role) {
  return "{\"name\": " + json_string(t.name) + ", \"memory\": " + json_string(gca::memory_name(tgt, t.memory)) +
         ", \"space\": " +
         (t.memory == gca::memory_type::dram ? json_string(gca::to_string(t.space)) : std::string("null")) +
         ", \"shape\": {\"partitions\": " + std::to_string(t.shape.partitions) +
         ", \"bytes\": " + std::to_string(t.shape.bytes) + "}, \"kind\": " +
         json_string(t.kind == gca::tensor_kind::input    ? "input"
                     : t.kind == gca::tensor_kind::output ? "output"
                                                          : "internal") +
         ", \"placement\": " +
         (t.at ? "{\"partition\": " + std::to_string(t.at->partition) + ", \"offset\": " +
                     std::to_string(t.at->offset) + "}"
               : std::string("null")) +
         ", \"pinned\": " + (t.pinned ? "true" : "false") + ", \"role\": " + json_string(to_string(role)) + "}";
}

/// One function: its counts, peaks and tensors.
inline void json_function(json_writer& j, const gca::function& f, const gca::target& tgt) {
  const std::vector<tensor_role> role = tensor_roles(f);
  std::uint64_t n_insts = 0, n_loops = 0, n_spill = 0, n_reload = 0;
  for (const gca::instruction& i : f.insts) {
    if (i.is_loop()) {
      ++n_loops;
      continue;
    }
    ++n_insts;
    if (i.opcode == gca::op::spill) ++n_spill;
    if (i.opcode == gca::op::reload) ++n_reload;
  }
  j.begin_object();
  j.key("name").value(f.name);
  j.key("core").value(f.core);
  j.key("instructions").value(n_insts);
  j.key("loops").value(n_loops);
  j.key("spill_instructions").value(n_spill);
  j.key("reload_instructions").value(n_reload);
  j.key("peaks");
  json_peaks(j, f, tgt);
  j.key("tensors").begin_array();
  for (gca::tensor_id id = 0; id < f.tensors.size(); ++id) j.raw(json_tensor_line(tgt, f.tensors[id], role[id]));
  j.end_array();
  j.end_object();
}

/// One pass: per function it colored, the space report.
inline void json_pass(json_writer& j, const gca::target& tgt, const gca::pass_report& p) {
  j.begin_object();
  j.key("pass").value(p.pass);
  j.key("functions").begin_array();
  for (const auto& [fn, r] : p.functions) {
    j.begin_object();
    j.key("function").value(fn);
    j.key("memory").value(gca::memory_name(tgt, r.memory));
    j.key("space");
    json_space(j, r.memory, r.space);
    j.key("ok").value(r.ok);
    j.key("error").value(r.error);
    j.key("unplaceable").strings(r.unplaceable);
    j.key("iterations").value(std::uint64_t{r.iterations});
    j.key("heuristic").value(r.heuristic);
    j.key("peak").value(r.peak);
    j.key("nodes").value(std::uint64_t{r.nodes});
    j.key("edges").value(std::uint64_t{r.edges});
    j.key("split").value(std::uint64_t{r.split});
    j.key("placed_by").value(r.placed_by);
    j.key("search_outcome").value(r.search_outcome);
    j.key("search_nodes").value(r.search_nodes);
    j.key("search_skipped").value(r.search_skipped);
    j.key("spills").begin_object();
    j.key("spilled_webs").value(std::uint64_t{r.spills.spilled_webs});
    j.key("spilled_bytes").value(r.spills.spilled_bytes);
    j.key("cycles").value(r.spills.cycles);
    j.key("reloads").value(std::uint64_t{r.spills.reloads});
    j.key("stores").value(std::uint64_t{r.spills.stores});
    j.key("spilled").strings(r.spills.spilled);
    j.end_object();
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

}  // namespace report_detail

/**
 * The allocated module and the reports of the passes that produced it, as one JSON document:
 *
 *   { "module": str, "target": {name, sb_partitions, sb_bytes, sb_usable, psum_banks, psum_bank_bytes,
 *                                psum_may_span_banks, dram_bytes, registers},
 *     "functions": [ { "name", "core", "instructions", "loops", "spill_instructions",
 *                      "reload_instructions",
 *                      "peaks": [ {memory, space|null, peak, unit, capacity, tensors, unplaced} ],
 *                      "tensors": [ {name, memory, space|null, shape:{partitions, bytes}, kind,
 *                                    placement:{partition, offset}|null, pinned, role} ] } ],
 *     "passes": [ { "pass", "functions": [ {function, memory, space|null, ok, error, unplaceable,
 *                   iterations, heuristic, peak, nodes, edges, split, placed_by, search_outcome,
 *                   search_nodes, search_skipped, spills:{spilled_webs, spilled_bytes, cycles, reloads, stores, spilled} } ] } ] }
 *
 * `space` is the DRAM address space (local/shared/debug) and null for the other memories. `role` is
 * "tensor", "spill_slot" or "reload_temp" (a spill or reload temporary), from the tensor's origin
 * (gca::role_of; a web split off a tensor has that tensor's role). `placed_by` is who placed the space
("coloring", "linear scan", "exact search"); `search_outcome` the exact placement search's first answer
for a spill-free placement ("found", "infeasible": spilling was needed, "gave up": one may exist; ""
when it did not run), and `search_nodes` what it spent; `search_skipped` why a search did not run where
it had more interfering pairs than it builds its graph for ("" otherwise). A peak is one past the highest unit a placed tensor uses (see peak_unit); DRAM has one
 * peak entry per address space that holds tensors.
 */
inline std::string json_report(const gca::module& m, const std::vector<gca::pass_report>& reports) {
  namespace d = report_detail;
  d::json_writer j;
  j.begin_object();
  j.key("module").value(m.name);
  j.key("target");
  d::json_target(j, m.tgt);
  j.key("functions").begin_array();
  for (const gca::function& f : m.functions) d::json_function(j, f, m.tgt);
  j.end_array();
  j.key("passes").begin_array();
  for (const gca::pass_report& p : reports) d::json_pass(j, m.tgt, p);
  j.end_array();
  j.end_object();
  j.out += '\n';
  return std::move(j.out);
}

// ======================================================================================================
// SVG

namespace report_detail {

/// FNV-1a, 64 bits: a name's colour must not depend on addresses or on the run.
constexpr std::uint64_t fnv1a(std::string_view s) noexcept {
  std::uint64_t h = 1469598103934665603ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

struct rgb {
  double r, g, b;
};

inline rgb hsl_to_rgb(double h, double s, double l) {
  auto f = [&](double n) {
    double k = n + h / 30.0;
    while (k >= 12) k -= 12;
    const double a = s * std::min(l, 1 - l);
    return l - a * std::max(-1.0, std::min({k - 3, 9 - k, 1.0}));
  };
  return {f(0), f(8), f(4)};
}

inline std::string hex_colour(rgb c) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string s = "#";
  for (double v : {c.r, c.g, c.b}) {
    const int x = std::clamp(static_cast<int>(v * 255.0 + 0.5), 0, 255);
    s += hex[x >> 4];
    s += hex[x & 15];
  }
  return s;
}

/// Fill and outline colours of a name: a light fill and a darker outline of the same hue. The hue is
/// spread with the golden ratio so that names hashing close together still differ visibly.
inline std::pair<std::string, std::string> name_colours(std::string_view name) {
  const std::uint64_t h = fnv1a(name);
  double hue = static_cast<double>(h % 4096) * 0.6180339887498949;
  hue = (hue - static_cast<double>(static_cast<std::uint64_t>(hue))) * 360.0;
  const double sat = 0.50 + 0.25 * static_cast<double>((h >> 20) % 101) / 100.0;
  const double light = 0.64 + 0.12 * static_cast<double>((h >> 40) % 101) / 100.0;
  return {hex_colour(hsl_to_rgb(hue, sat, light)), hex_colour(hsl_to_rgb(hue, sat, 0.30))};
}

/// Smallest power of two >= v (v >= 1).
inline std::uint64_t pow2_ceil(std::uint64_t v) {
  std::uint64_t p = 1;
  while (p < v && p < (std::uint64_t{1} << 62)) p <<= 1;
  return p;
}

class svg_out {
 public:
  std::string s;
  void rect(double x, double y, double w, double h, std::string_view attrs) {
    s += "<rect x=\"" + fixed(x) + "\" y=\"" + fixed(y) + "\" width=\"" + fixed(w) + "\" height=\"" + fixed(h) +
         "\" " + std::string(attrs) + "/>\n";
  }
  void line(double x1, double y1, double x2, double y2, std::string_view attrs) {
    s += "<line x1=\"" + fixed(x1) + "\" y1=\"" + fixed(y1) + "\" x2=\"" + fixed(x2) + "\" y2=\"" + fixed(y2) +
         "\" " + std::string(attrs) + "/>\n";
  }
  void text(double x, double y, std::string_view t, std::string_view attrs = {}) {
    s += "<text x=\"" + fixed(x) + "\" y=\"" + fixed(y) + "\"" + (attrs.empty() ? "" : " ") + std::string(attrs) +
         ">" + xml_text(t) + "</text>\n";
  }
  void polygon(std::string_view points, std::string_view attrs) {
    s += "<polygon points=\"" + std::string(points) + "\" " + std::string(attrs) + "/>\n";
  }
};

/// Approximate width of text in the DejaVu-like sans-serif used here (counts code points).
inline double text_width(std::string_view t, double font_px) {
  std::size_t n = 0;
  for (char c : t)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return static_cast<double>(n) * font_px * 0.61;
}

/// `s` cut to at most `n` code points, with an ellipsis when cut.
inline std::string shorten(std::string_view s, std::size_t n) {
  std::size_t cps = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (cps == n) break;
      ++cps;
    }
  }
  if (i >= s.size()) return std::string(s);
  // Cut one code point earlier to make room for the ellipsis.
  std::size_t j = i;
  do --j;
  while (j > 0 && (static_cast<unsigned char>(s[j]) & 0xC0) == 0x80);
  return std::string(s.substr(0, j)) + "\u2026";
}

/// "25%", "2.6%", "<0.1%".
inline std::string percent(std::uint64_t part, std::uint64_t whole) {
  const double v = 100.0 * static_cast<double>(part) / static_cast<double>(whole);
  if (part > 0 && v < 0.1) return "<0.1%";
  return fixed(v, v < 10 ? 1 : 0) + "%";
}

/// Fixed layout of the picture.
struct svg_frame {
  double left = 86;       // y axis labels
  double plot_w = 760;    // plot width
  double key_x = 0;       // per-panel tensor key
  double key_w = 250;
  double width = 0;
  std::size_t labels = 0;  // box labels drawn so far
  std::size_t titles = 0;  // hover titles drawn so far
  std::size_t boxes = 0;   // boxes drawn so far
  std::size_t omitted = 0; // boxes left out over max_boxes
  static constexpr std::size_t max_labels = 600;
  static constexpr std::size_t max_titles = 5000;
  static constexpr std::size_t max_boxes = 150000;
  static constexpr std::size_t max_key_rows = 24;
  static constexpr std::size_t max_axis_labels = 160;
};

struct svg_panel {
  gca::memory_type memory = gca::memory_type::sb;
  gca::address_space space = gca::address_space::local;
  std::vector<gca::tensor_id> tensors;  // of this memory (and DRAM space), in declaration order
  std::uint64_t peak = 0;               // one past the highest used unit
  std::uint64_t capacity = 0;           // the memory's, in the same unit
  std::uint64_t top = 1;                // the value at the top of the plot
  std::uint64_t tick = 1;               // y tick step
  std::size_t unplaced = 0;
  double height = 0;                    // plot height in px
};

inline std::vector<svg_panel> make_panels(const gca::function& f, const gca::target& tgt) {
  using gca::memory_type;
  std::vector<svg_panel> panels;
  for (memory_peak& mp : gca::memory_peaks(f, tgt, {memory_type::psum, memory_type::sb, memory_type::dram,
                                                     memory_type::reg})) {
    svg_panel p;
    p.memory = mp.memory;
    p.space = mp.space;
    p.tensors = std::move(mp.tensors);
    p.unplaced = mp.unplaced;
    p.peak = mp.peak;
    p.capacity = mp.capacity;
    const std::uint64_t peak = std::max<std::uint64_t>(p.peak, 1);
    if (p.memory == memory_type::psum && peak / std::max<std::uint64_t>(tgt.psum_bank_bytes, 1) < 32) {
      p.tick = std::max<std::uint64_t>(tgt.psum_bank_bytes, 1);  // one tick per bank
    } else if (p.memory == memory_type::reg) {
      p.tick = peak <= 16 ? 1 : pow2_ceil((peak + 7) / 8);
    } else {
      p.tick = pow2_ceil((peak + 3) / 4);  // 4..8 power-of-two ticks
    }
    p.top = (peak + p.tick - 1) / p.tick * p.tick;
    switch (p.memory) {
      case memory_type::psum: p.height = 170; break;
      case memory_type::sb: p.height = 240; break;
      case memory_type::dram: p.height = 130; break;
      case memory_type::reg: p.height = std::clamp(static_cast<double>(p.top) * 18.0, 36.0, 180.0); break;
      default: p.height = gca::layout_of(tgt, p.memory) == gca::memory_layout::linear ? 130 : 240;  // a target's own
    }
    panels.push_back(std::move(p));
  }
  return panels;
}

/// "p0-127" for tensors of a rectangle memory (SB, PSUM, a target's own); "" otherwise.
inline std::string partition_range(const gca::target& tgt, const gca::tensor& x) {
  if (!x.at || gca::layout_of(tgt, x.memory) != gca::memory_layout::rectangles) return {};
  return "p" + std::to_string(x.at->partition) + "-" +
         std::to_string(x.at->partition + std::max<std::uint32_t>(x.shape.partitions, 1) - 1);
}

/// The name a tensor's colour comes from, so that the pieces of one value share a hue: the program's
/// own tensor behind it (a spill slot or temporary of %t, or a web of %t split off, is coloured as %t).
inline std::string_view colour_name(const gca::function& f, gca::tensor_id t) {
  return f.tensors[gca::user_tensor(f, t)].name;
}

inline std::string box_style(const std::string& fill, const std::string& stroke, tensor_role r, bool thin = false) {
  std::string a = "fill=\"" + fill + "\" stroke=\"";
  switch (r) {
    case tensor_role::spill_slot: return a + "#b71c1c\" stroke-width=\"1.3\" stroke-dasharray=\"3 2\"";
    case tensor_role::reload_temp: return a + "#0d47a1\" stroke-width=\"1.3\"";
    case tensor_role::plain: break;
  }
  return a + stroke + (thin ? "\" stroke-width=\"0.3\"" : "\" stroke-width=\"0.7\"");
}

inline const char* role_overlay(tensor_role r) {
  switch (r) {
    case tensor_role::spill_slot: return "fill=\"url(#hatch)\"";
    case tensor_role::reload_temp: return "fill=\"url(#dots)\"";
    case tensor_role::plain: break;
  }
  return nullptr;
}

/// A rectangle in picture coordinates.
struct box {
  double x, y, w, h;
  bool overlaps(const box& o) const noexcept {
    return x < o.x + o.w && o.x < x + w && y < o.y + o.h && o.y < y + h;
  }
};

/// Panels with more boxes than this do not look for room beside thin boxes (the search is quadratic).
inline constexpr std::size_t max_callout_boxes = 3000;

/// Rows of a key of `n` entries in `fit` rows: all of them, or fit - 1 and a "+k more" line.
constexpr std::size_t order_size_shown(std::size_t n, std::size_t fit) noexcept {
  return n <= fit ? n : (fit > 0 ? fit - 1 : 0);
}

/// Where one panel's plot lies: its left edge, its rows [y0, y1), the width of one program point, and
/// the value at its top; X and Y map a point and a value (address, register) to picture coordinates.
struct panel_area {
  double left, cell, y0, y1, top;
  double X(double pt) const noexcept { return left + pt * cell; }
  double Y(double v) const noexcept { return y1 - v / top * (y1 - y0); }
};

/// Where a tensor's label may go: the widest box drawn for it.
struct label_spot {
  double x, y, w, h;
  gca::tensor_id t;
};

/// The panel's frame, loops, spill and reload columns, grid, axis labels, PSUM banks and capacity line.
inline void svg_panel_frame(svg_out& o, const svg_frame& fr, const gca::module& m, const gca::liveness& live,
                            const chain_facts& cf, const svg_panel& p, const panel_area& a) {
  using gca::memory_type;
  const double left = a.left, y0 = a.y0, y1 = a.y1, h = y1 - y0, cell = a.cell;
  auto X = [&](double pt) { return a.X(pt); };
  auto Y = [&](double v) { return a.Y(v); };
  const bool is_reg = p.memory == memory_type::reg;
  // Frame, loops, spill/reload columns.
  o.rect(left, y0, fr.plot_w, h, "fill=\"#fdfdfd\" stroke=\"#888\" stroke-width=\"0.8\"");
  for (const loop_span& l : cf.loops)
    o.rect(X(l.begin), y0, X(l.end) - X(l.begin), h, "fill=\"#000\" fill-opacity=\"0.045\"");
  for (const move_point& mp : cf.moves) {
    if (std::find(mp.memories.begin(), mp.memories.end(), p.memory) == mp.memories.end()) continue;
    o.rect(X(mp.point), y0, std::max(cell, 1.0), h,
           mp.is_spill ? "fill=\"#e53935\" fill-opacity=\"0.25\"" : "fill=\"#1e88e5\" fill-opacity=\"0.25\"");
  }
  // Grid and y labels. REG labels name the register row; the others mark addresses.
  if (cell >= 7)
    for (std::size_t k = 1; k + 1 < live.points + 3; ++k)
      o.line(X(static_cast<double>(k)), y0, X(static_cast<double>(k)), y1, "stroke=\"#000\" stroke-opacity=\"0.05\"");
  for (std::uint64_t v = 0; v <= p.top; v += p.tick) {
    const double yy = Y(static_cast<double>(v));
    if (v > 0 && v < p.top && p.memory != memory_type::psum)
      o.line(left, yy, left + fr.plot_w, yy, "stroke=\"#000\" stroke-opacity=\"0.07\"");
    o.line(left - 4, yy, left, yy, "stroke=\"#777\"");
    if (is_reg) {
      if (v < p.top)
        o.text(left - 7, Y(static_cast<double>(v) + 0.5) + 3.5, "r" + std::to_string(v),
               "class=\"axis\" text-anchor=\"end\"");
    } else {
      o.text(left - 7, yy + 3.5, human_bytes(v), "class=\"axis\" text-anchor=\"end\"");
    }
  }
  // PSUM banks.
  if (p.memory == memory_type::psum && m.tgt.psum_bank_bytes > 0 && p.top / m.tgt.psum_bank_bytes <= 64) {
    const std::uint64_t bank = m.tgt.psum_bank_bytes;
    for (std::uint64_t b = 0; b * bank < p.top; ++b) {
      const double lo = Y(static_cast<double>(b * bank)), hi = Y(static_cast<double>((b + 1) * bank));
      if (b > 0) o.line(left, lo, left + fr.plot_w, lo, "stroke=\"#444\" stroke-width=\"0.9\" stroke-dasharray=\"5 3\"");
      if (lo - hi >= 11)
        o.text(left + fr.plot_w - 4, hi + 10, "bank " + std::to_string(b), "class=\"bank\" text-anchor=\"end\"");
    }
  }
  // Capacity.
  const std::uint64_t cap = p.capacity;
  if (cap > 0 && cap <= p.top) {
    const double yy = Y(static_cast<double>(cap));
    o.line(left, yy, left + fr.plot_w, yy, "stroke=\"#c62828\" stroke-width=\"1.6\"");
  }
}

/// The boxes: every interval of every web of a placed tensor of the panel (adjacent ones closer than
/// half a pixel as one), with their tooltips. Returns each tensor's widest box, for its label; `drawn`
/// gets the boxes (up to max_callout_boxes + 1), for placing the labels of thin ones beside them.
inline std::vector<label_spot> svg_panel_boxes(svg_out& o, svg_frame& fr, const gca::module& m, const gca::function& f,
                                               const gca::liveness& live, const std::vector<tensor_role>& role,
                                               const svg_panel& p, const panel_area& a, std::vector<box>& drawn) {
  using gca::memory_type;
  const double cols = static_cast<double>(live.points + 2);
  const double cell = a.cell;
  auto X = [&](double pt) { return a.X(pt); };
  auto Y = [&](double v) { return a.Y(v); };
  const bool is_reg = p.memory == memory_type::reg;
  std::vector<label_spot> spots;
  for (gca::web_id w = 0; w < live.webs.size(); ++w) {
    const gca::tensor_id t = live.webs[w].tensor;
    const gca::tensor& x = f.tensors[t];
    if (x.memory != p.memory || (p.memory == memory_type::dram && x.space != p.space) || !x.at) continue;
    double by0 = Y(static_cast<double>(placed_end(x))), by1 = Y(static_cast<double>(x.at->offset));
    if (by1 - by0 < 3) {  // a sliver of a tensor stays visible
      const double mid = (by0 + by1) / 2;
      by0 = mid - 1.5;
      by1 = mid + 1.5;
    }
    const auto [fill, stroke] = name_colours(colour_name(f, t));
    const std::string style = box_style(fill, stroke, role[t], cell < 4);
    const char* overlay = role_overlay(role[t]);
    const std::string parts = partition_range(m.tgt, x);
    label_spot best{0, 0, -1, 0, t};
    // Adjacent intervals closer than half a pixel would render as one box: draw them as one.
    const auto r = live.range(w);
    for (std::size_t k = 0; k < r.size();) {
      const double b = std::min<double>(r[k].begin, cols);
      double e = std::min<double>(r[k].end, cols);
      std::size_t next = k + 1;
      while (next < r.size() && (static_cast<double>(r[next].begin) - e) * cell < 0.5) {
        e = std::min<double>(r[next].end, cols);
        ++next;
      }
      const gca::program_point first = r[k].begin, last = r[next - 1].end;
      k = next;
      if (e <= b) continue;
      if (fr.boxes >= svg_frame::max_boxes) {
        ++fr.omitted;
        continue;
      }
      ++fr.boxes;
      const double bx = X(b), bw = std::max(X(e) - X(b), 0.8);
      const bool titled = fr.titles < svg_frame::max_titles;
      if (titled) {
        ++fr.titles;
        std::string tip = "%" + x.name + " \u00b7 " + std::string(gca::memory_name(m.tgt, x.memory)) + " " +
                          std::to_string(x.shape.partitions) + "x" + std::to_string(x.shape.bytes) + " at " +
                          (parts.empty() ? "" : parts + " ") + (is_reg ? "r" : "offset ") +
                          std::to_string(x.at->offset) + " \u00b7 points [" + std::to_string(first) + ", " +
                          std::to_string(last) + ")";
        if (role[t] != tensor_role::plain) tip += " \u00b7 " + std::string(to_string(role[t]));
        o.s += "<g><title>" + xml_text(tip) + "</title>\n";
      }
      o.rect(bx, by0, bw, by1 - by0, style);
      if (overlay) o.rect(bx, by0, bw, by1 - by0, overlay);
      if (titled) o.s += "</g>\n";
      if (drawn.size() <= max_callout_boxes) drawn.push_back({bx, by0, bw, by1 - by0});
      if (bw > best.w) best = {bx, by0, bw, by1 - by0, t};
    }
    if (best.w > 0) spots.push_back(best);
  }
  return spots;
}

/// The labels, where they fit: name, and the partition range on a second line (or after the name). A
/// box too thin for its name gets it just above or below, where that covers no box and no other label.
inline void svg_panel_labels(svg_out& o, svg_frame& fr, const gca::module& m, const gca::function& f,
                             const std::vector<label_spot>& spots, const std::vector<box>& drawn, const panel_area& a) {
  const double y0 = a.y0, y1 = a.y1;
  std::vector<box> taken;
  std::vector<const label_spot*> thin;
  for (const label_spot& s : spots) {
    if (fr.labels >= svg_frame::max_labels) break;
    const gca::tensor& x = f.tensors[s.t];
    const std::string parts = partition_range(m.tgt, x);
    const double fs = 10;
    const double room = s.w - 6;
    const double cx = s.x + s.w / 2;
    if (s.h < 12 && room >= text_width(x.name, fs)) thin.push_back(&s);
    if (s.h >= 12 && room >= text_width(x.name, fs)) {
      ++fr.labels;
      if (!parts.empty() && s.h >= 25 && room >= text_width(parts, 9)) {
        const double cy = s.y + s.h / 2;
        o.text(cx, cy - 1.5, x.name, "class=\"label\" text-anchor=\"middle\"");
        o.text(cx, cy + 9.5, parts, "class=\"parts\" text-anchor=\"middle\"");
      } else if (!parts.empty() && room >= text_width(x.name + " " + parts, fs)) {
        o.text(cx, s.y + s.h / 2 + 3.5, x.name + " " + parts, "class=\"label\" text-anchor=\"middle\"");
      } else {
        o.text(cx, s.y + s.h / 2 + 3.5, x.name, "class=\"label\" text-anchor=\"middle\"");
      }
    }
  }
  if (drawn.size() <= max_callout_boxes) {
    auto free = [&](const box& b) {
      if (b.y < y0 || b.y + b.h > y1) return false;
      for (const box& d : drawn)
        if (d.overlaps(b)) return false;
      for (const box& d : taken)
        if (d.overlaps(b)) return false;
      return true;
    };
    for (const label_spot* s : thin) {
      if (fr.labels >= svg_frame::max_labels) break;
      const std::string& name = f.tensors[s->t].name;
      const double tw = text_width(name, 10) + 4;
      const double cx = s->x + s->w / 2;
      for (const double ly : {s->y - 11.5, s->y + s->h + 0.5}) {
        const box b{cx - tw / 2, ly, tw, 11};
        if (!free(b)) continue;
        taken.push_back(b);
        ++fr.labels;
        o.text(cx, ly + 8.5, name, "class=\"label\" text-anchor=\"middle\"");
        break;
      }
    }
  }
}

/// The key: the panel's tensors from the highest address down, as they stack in the plot; when they do
/// not all fit, the biggest ones (and the spill code's, which are the point of looking).
inline void svg_panel_key(svg_out& o, const svg_frame& fr, const gca::module& m, const gca::function& f,
                          const std::vector<tensor_role>& role, const svg_panel& p, double y0) {
  const double h = p.height;
  const bool is_reg = p.memory == gca::memory_type::reg;
  const auto rows = static_cast<std::size_t>(std::max(1.0, (h + 18) / 13.0));
  const std::size_t fit = std::min(rows, svg_frame::max_key_rows);
  const std::size_t shown = order_size_shown(p.tensors.size(), fit);
  std::vector<gca::tensor_id> order = p.tensors;
  if (shown < order.size()) {
    auto weight = [&](gca::tensor_id t) {
      const gca::tensor& x = f.tensors[t];
      const std::uint64_t bytes = std::uint64_t{x.shape.partitions} * x.shape.bytes;
      return std::pair<int, std::uint64_t>(role[t] != tensor_role::plain ? 1 : 0, x.at ? bytes : 0);
    };
    std::stable_sort(order.begin(), order.end(), [&](gca::tensor_id a, gca::tensor_id b) { return weight(a) > weight(b); });
    order.resize(shown);
  }
  std::stable_sort(order.begin(), order.end(), [&](gca::tensor_id a, gca::tensor_id b) {
    const gca::tensor &x = f.tensors[a], &y = f.tensors[b];
    if (x.at.has_value() != y.at.has_value()) return x.at.has_value();
    if (!x.at) return false;
    if (x.at->offset != y.at->offset) return x.at->offset > y.at->offset;
    return x.at->partition < y.at->partition;
  });
  double ky = y0 - 14;
  for (std::size_t k = 0; k < shown; ++k, ky += 13) {
    const gca::tensor& x = f.tensors[order[k]];
    const auto [fill, stroke] = name_colours(colour_name(f, order[k]));
    o.rect(fr.key_x, ky + 2, 11, 9, box_style(fill, stroke, role[order[k]]));
    if (const char* ov = role_overlay(role[order[k]])) o.rect(fr.key_x, ky + 2, 11, 9, ov);
    std::string name = shorten(x.name, 18);
    if (x.kind == gca::tensor_kind::input) name += " (in)";
    if (x.kind == gca::tensor_kind::output) name += " (out)";
    o.text(fr.key_x + 16, ky + 10, name, "class=\"key\"");
    std::string where;
    if (!x.at) {
      where = "unplaced";
    } else if (is_reg) {
      where = "r" + std::to_string(x.at->offset);
    } else {
      where = partition_range(m.tgt, x);
      if (!where.empty())  // SB/PSUM: exact byte range per partition
        where += " [" + std::to_string(x.at->offset) + ", " + std::to_string(placed_end(x)) + ")";
      else
        where = "@" + human_bytes(x.at->offset) + " +" + human_bytes(placed_end(x) - x.at->offset);
    }
    o.text(fr.key_x + fr.key_w, ky + 10, where, "class=\"keyd\" text-anchor=\"end\"");
  }
  if (shown < p.tensors.size())
    o.text(fr.key_x + 16, ky + 10, "+" + std::to_string(p.tensors.size() - shown) + " more (the largest are listed)",
           "class=\"keyd\"");
}

/// Draws one panel with its plot top at `y0`.
inline void svg_panel_body(svg_out& o, svg_frame& fr, const gca::module& m, const gca::function& f,
                           const gca::liveness& live, const std::vector<tensor_role>& role,
                           const chain_facts& cf, const svg_panel& p, double y0) {
  const panel_area a{fr.left, fr.plot_w / static_cast<double>(live.points + 2), y0, y0 + p.height,
                     static_cast<double>(p.top)};
  svg_panel_frame(o, fr, m, live, cf, p, a);
  std::vector<box> drawn;
  const std::vector<label_spot> spots = svg_panel_boxes(o, fr, m, f, live, role, p, a, drawn);
  svg_panel_labels(o, fr, m, f, spots, drawn, a);
  svg_panel_key(o, fr, m, f, role, p, y0);
}

/// A panel's title and facts (peak against capacity, tensors, unplaced), drawn at `y`.
inline void svg_panel_title(svg_out& o, const svg_frame& fr, const gca::module& m, const svg_panel& p, double y) {
  using gca::memory_type;
  const double left = fr.left;
    std::string title(gca::log_name(m.tgt, p.memory));
    if (p.memory == memory_type::dram) title += " " + std::string(gca::to_string(p.space));
    const std::uint64_t cap = p.capacity;
    std::string facts;
    if (p.memory == memory_type::reg) {
      facts = std::to_string(p.peak) + (p.peak == 1 ? " register" : " registers") + " of " + std::to_string(cap);
    } else {
      facts = "peak " + human_bytes(p.peak) + " of " + human_bytes(cap);
      if (gca::layout_of(m.tgt, p.memory) == gca::memory_layout::rectangles) facts += " per partition";
    }
    if (cap > 0) facts += " (" + percent(p.peak, cap) + ")";
    facts += " \u00b7 " + std::to_string(p.tensors.size()) + (p.tensors.size() == 1 ? " tensor" : " tensors");
    if (p.unplaced) facts += " \u00b7 " + std::to_string(p.unplaced) + " unplaced";
  o.text(left, y + 14, title, "class=\"panel\"");
  o.text(left + text_width(title, 13) * 1.18 + 10, y + 14, facts, "class=\"facts\"");
}

/// The row of spill (down) and reload (up) markers at `y`; returns the y below it.
inline double svg_move_markers(svg_out& o, const svg_frame& fr, const chain_facts& cf, double cell, double y) {
  const double left = fr.left;
  auto X = [&](double pt) { return left + pt * cell; };
  if (!cf.moves.empty()) {
    o.text(left - 7, y + 8, "spill/reload", "class=\"axis\" text-anchor=\"end\"");
    for (const move_point& mp : cf.moves) {
      const double cx = X(static_cast<double>(mp.point) + 0.5);
      const double r = std::clamp(cell / 2, 2.0, 5.0);
      const std::string pts = mp.is_spill ? fixed(cx - r) + "," + fixed(y + 1) + " " + fixed(cx + r) + "," +
                                                fixed(y + 1) + " " + fixed(cx) + "," + fixed(y + 10)
                                          : fixed(cx - r) + "," + fixed(y + 10) + " " + fixed(cx + r) + "," +
                                                fixed(y + 10) + " " + fixed(cx) + "," + fixed(y + 1);
      o.polygon(pts, mp.is_spill ? "fill=\"#c62828\"" : "fill=\"#1565c0\"");
    }
    y += 14;
  }
  return y;
}

/// The loop bars, one row per nesting depth, from `y`; returns the y below them.
inline double svg_loop_bars(svg_out& o, svg_frame& fr, const chain_facts& cf, double cell, double y) {
  const double left = fr.left;
  auto X = [&](double pt) { return left + pt * cell; };
  if (!cf.loops.empty()) {
    o.text(left - 7, y + 11, "loops", "class=\"axis\" text-anchor=\"end\"");
    for (const loop_span& l : cf.loops) {
      const double by = y + static_cast<double>(l.depth) * 16;
      const double bx = X(l.begin), bw = std::max(X(l.end) - X(l.begin), 1.0);
      o.rect(bx, by + 1, bw, 13, "fill=\"#e6e6e6\" stroke=\"#888\" stroke-width=\"0.7\" rx=\"2\"");
      const std::string full = l.name + " \u00d7" + std::to_string(l.trips);
      if (fr.labels < svg_frame::max_labels) {
        if (bw - 6 >= text_width(full, 10)) {
          ++fr.labels;
          o.text(bx + 4, by + 11, full, "class=\"loop\"");
        } else if (bw - 6 >= text_width(l.name, 10)) {
          ++fr.labels;
          o.text(bx + 4, by + 11, l.name, "class=\"loop\"");
        }
      }
    }
    y += static_cast<double>(cf.max_depth) * 16 + 2;
  }
  return y;
}

/// The x axis at `y`: each point's number and opcode when they fit, else numbered ticks; returns the y
/// below it.
inline double svg_x_axis(svg_out& o, const svg_frame& fr, const chain_facts& cf, std::size_t n, double cell, double y) {
  const double left = fr.left;
  auto X = [&](double pt) { return left + pt * cell; };
  o.line(left, y + 1, left + fr.plot_w, y + 1, "stroke=\"#888\"");
  if (cell >= 11 && n + 2 <= svg_frame::max_axis_labels) {
    std::size_t longest = 0;
    for (gca::program_point pt = 0; pt < n + 2; ++pt) {
      std::string t = (pt == 0 || pt == n + 1) ? cf.point_label[pt] : std::to_string(pt) + " " + cf.point_label[pt];
      t = shorten(t, 22);
      longest = std::max(longest, t.size());
      const double cx = X(static_cast<double>(pt) + 0.5) + 3.5;
      static constexpr const char* cls[] = {"pt", "pt spill", "pt reload", "pt loopop", "pt edge"};
      o.s += "<text transform=\"translate(" + fixed(cx) + "," + fixed(y + 6) + ") rotate(-55)\" class=\"" +
             cls[static_cast<std::size_t>(cf.kind[pt])] + "\" text-anchor=\"end\">" + xml_text(t) + "</text>\n";
      o.line(X(static_cast<double>(pt) + 0.5), y + 1, X(static_cast<double>(pt) + 0.5), y + 4, "stroke=\"#888\"");
    }
    y += static_cast<double>(std::min<std::size_t>(longest, 22)) * 10 * 0.61 * 0.82 + 14;
  } else {
    std::uint64_t step = 1;
    while (static_cast<double>(step) * cell < 48) {
      if (static_cast<double>(step * 2) * cell >= 48) step *= 2;
      else if (static_cast<double>(step * 5) * cell >= 48) step *= 5;
      else step *= 10;
    }
    for (std::uint64_t pt = 0; pt < n + 2; pt += step) {
      const double cx = X(static_cast<double>(pt) + 0.5);
      o.line(cx, y + 1, cx, y + 5, "stroke=\"#888\"");
      o.text(cx, y + 15, pt == 0 ? std::string("entry") : std::to_string(pt), "class=\"axis\" text-anchor=\"middle\"");
    }
    y += 20;
  }
  o.text(left + fr.plot_w, y + 12, "program point \u2192", "class=\"axis\" text-anchor=\"end\"");
  return y + 18;
}

/// Draws one function's section from `y`; returns the y below it.
inline double svg_function(svg_out& o, svg_frame& fr, const gca::module& m, const gca::linearized_function& lf,
                           const gca::liveness& live, double y) {
  const gca::function& f = lf.work();
  const std::vector<tensor_role> role = tensor_roles(f);
  const chain_facts cf = gca::read_chain(lf);
  const std::vector<svg_panel> panels = make_panels(f, m.tgt);
  const std::size_t n = lf.points();
  const double cell = fr.plot_w / static_cast<double>(n + 2);
  const double left = fr.left;

  // Section header.
  std::size_t spills = 0, reloads = 0;
  for (const move_point& mp : cf.moves) (mp.is_spill ? spills : reloads) += 1;
  std::string head = "function " + f.name + " \u00b7 core " + std::to_string(f.core) + " \u00b7 " +
                     std::to_string(n) + " points";
  if (!cf.loops.empty()) head += " \u00b7 " + std::to_string(cf.loops.size()) + (cf.loops.size() == 1 ? " loop" : " loops");
  head += spills + reloads > 0
              ? " \u00b7 " + std::to_string(spills) + " spill, " + std::to_string(reloads) + " reload points"
              : " \u00b7 no spill code";
  y += 8;
  o.line(8, y, fr.width - 8, y, "stroke=\"#bbb\"");
  o.text(left, y + 20, head, "class=\"fn\"");
  y += 30;
  if (panels.empty()) {
    o.text(left, y + 12, "(no tensors)", "class=\"note\"");
    return y + 22;
  }

  for (const svg_panel& p : panels) {
    svg_panel_title(o, fr, m, p, y);
    y += 20;
    o.s += "<g>\n";
    svg_panel_body(o, fr, m, f, live, role, cf, p, y);
    o.s += "</g>\n";
    y += p.height + 10;
  }
  y = svg_move_markers(o, fr, cf, cell, y);
  y = svg_loop_bars(o, fr, cf, cell, y);
  return svg_x_axis(o, fr, cf, n, cell, y);
}

}  // namespace report_detail

/**
 * A memory map of the allocated module as a self-contained SVG (no scripts, no external resources).
 *
 * One section per function; in it one panel per memory that has tensors (PSUM, SB, DRAM per address
 * space, REG). In a panel x is the program point of the flattened linearization (entry, 1..N, exit) and
 * y the address: byte offset per partition (SB, PSUM), byte address (DRAM), register (REG), scaled to
 * the panel's peak. Each live interval of each placed tensor is a box at the tensor's placement, filled
 * with a colour hashed from the tensor's name and labelled when the label fits (SB/PSUM labels give the
 * partition range); a key beside each panel lists its tensors from the highest address down. Spill
 * slots are hatched, reload temporaries dotted (both coloured like the tensor they stand for); spill and
 * reload points are tinted columns with markers below the panels; loops are shaded spans with a labelled
 * bar per nesting level; PSUM bank boundaries are dashed lines. Large kernels keep a bounded number of
 * labels, hover titles and boxes.
 */
namespace report_detail {

/// The title and the legend at the top of the picture; returns where the first function starts.
inline double svg_legend(svg_out& body, const svg_frame& fr, const gca::module& m) {
  body.text(fr.left, 26, "gca memory map \u2014 module " + m.name + " on " + std::string(m.tgt.name),
            "class=\"title\"");
  double lx = fr.left, ly = 40;
  auto advance = [&](std::string_view label) {
    lx += 27 + text_width(label, 11) + 16;
    if (lx > fr.width - 170) {
      lx = fr.left;
      ly += 18;
    }
  };
  auto swatch = [&](std::string_view attrs, const char* overlay, std::string_view label) {
    body.rect(lx, ly, 22, 12, attrs);
    if (overlay) body.rect(lx, ly, 22, 12, overlay);
    body.text(lx + 27, ly + 10, label, "class=\"legend\"");
    advance(label);
  };
  const std::string sample = "#9ecae1";
  swatch(box_style(sample, "#2b5d7d", tensor_role::plain), nullptr, "live interval of a tensor (colour from name)");
  swatch(box_style(sample, "", tensor_role::spill_slot), role_overlay(tensor_role::spill_slot), "spill slot");
  swatch(box_style(sample, "", tensor_role::reload_temp), role_overlay(tensor_role::reload_temp),
         "reload temporary");
  swatch("fill=\"#e53935\" fill-opacity=\"0.3\"", nullptr, "spill point");
  swatch("fill=\"#1e88e5\" fill-opacity=\"0.3\"", nullptr, "reload point");
  swatch("fill=\"#000\" fill-opacity=\"0.08\"", nullptr, "loop span");
  body.line(lx, ly + 6, lx + 22, ly + 6, "stroke=\"#444\" stroke-dasharray=\"5 3\"");
  body.text(lx + 27, ly + 10, "PSUM bank boundary", "class=\"legend\"");
  advance("PSUM bank boundary");
  body.line(lx, ly + 6, lx + 22, ly + 6, "stroke=\"#c62828\" stroke-width=\"1.6\"");
  body.text(lx + 27, ly + 10, "capacity", "class=\"legend\"");
  body.text(fr.left, ly + 30,
            "x: program points of the flattened linearization (entry, 1..N, exit); y: byte offset per partition "
            "(SB, PSUM), byte address (DRAM), register (REG)",
            "class=\"note\"");
  return ly + 36;
}

/// The SVG document around `body`: size, title, patterns and styles.
inline std::string svg_document(const svg_frame& fr, double height, const gca::module& m, const std::string& body) {
  std::string doc = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    fixed(fr.width) + "\" height=\"" + fixed(height) + "\" viewBox=\"0 0 " + fixed(fr.width) +
                    " " + fixed(height) + "\">\n";
  doc += "<title>" + xml_text("gca memory map of module " + m.name) + "</title>\n";
  doc +=
      "<defs>\n"
      "<pattern id=\"hatch\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" "
      "patternTransform=\"rotate(45)\"><rect width=\"2.2\" height=\"6\" fill=\"#7f0000\" fill-opacity=\"0.55\"/>"
      "</pattern>\n"
      "<pattern id=\"dots\" patternUnits=\"userSpaceOnUse\" width=\"5\" height=\"5\">"
      "<circle cx=\"2.5\" cy=\"2.5\" r=\"1.1\" fill=\"#0d2a6b\" fill-opacity=\"0.65\"/></pattern>\n"
      "<style>\n"
      "text{font-family:'DejaVu Sans',Verdana,Arial,Helvetica,sans-serif;fill:#222}\n"
      ".title{font-size:17px;font-weight:bold}.fn{font-size:14px;font-weight:bold}\n"
      ".panel{font-size:13px;font-weight:bold}.facts{font-size:11px;fill:#555}.legend{font-size:11px}\n"
      ".axis{font-size:10px;fill:#555}.note{font-size:11px;fill:#666}.bank{font-size:9px;fill:#666}\n"
      ".label,.parts,.bank{paint-order:stroke;stroke:#fff;stroke-opacity:0.8;stroke-width:2.5px;stroke-linejoin:round}\n"
      ".label{font-size:10px;fill:#111}.parts{font-size:9px;fill:#333}.loop{font-size:10px;fill:#333}\n"
      ".key{font-size:10px;fill:#222}.keyd{font-size:9.5px;fill:#666}\n"
      ".pt{font-size:10px;fill:#444}.spill{fill:#c62828;font-weight:bold}.reload{fill:#1565c0;font-weight:bold}\n"
      ".loopop{fill:#777;font-style:italic}.edge{fill:#888}\n"
      "</style>\n"
      "</defs>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  doc += body;
  doc += "</svg>\n";
  return doc;
}

}  // namespace report_detail

inline std::string svg_memory_map(const gca::module& m) {
  namespace d = report_detail;
  d::svg_frame fr;

  std::size_t max_cols = 2;
  std::vector<gca::linearized_function> lins;
  std::vector<gca::liveness> lives;
  lins.reserve(m.functions.size());
  lives.reserve(m.functions.size());
  for (const gca::function& f : m.functions) {
    lins.push_back(gca::linearize(f, gca::flattened_loops{}));
    lives.push_back(gca::analyze_liveness(lins.back()));
    max_cols = std::max(max_cols, lins.back().points() + 2);
  }
  // The same plot width for every function so that sections line up: wide enough for the labels of
  // short kernels, bounded for long ones (their boxes get thin).
  fr.plot_w = std::clamp(static_cast<double>(max_cols) * 44.0, 760.0, 1500.0);
  fr.key_x = fr.left + fr.plot_w + 16;
  fr.width = fr.key_x + fr.key_w + 12;

  d::svg_out body;
  double y = d::svg_legend(body, fr, m);
  for (std::size_t fi = 0; fi < m.functions.size(); ++fi) y = d::svg_function(body, fr, m, lins[fi], lives[fi], y);
  if (fr.omitted > 0) {
    body.text(fr.left, y + 12, std::to_string(fr.omitted) + " boxes left out (more than " +
                                   std::to_string(d::svg_frame::max_boxes) + ")", "class=\"note\"");
    y += 20;
  }
  return d::svg_document(fr, y + 12, m, body.s);
}

}  // namespace gca_tools
