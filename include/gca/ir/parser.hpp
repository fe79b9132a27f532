// gca/ir/parser.hpp — reads the textual IR (grammar and example: docs/FORMAT.md).
//
// Provides `parse(text, file)` and `parse_file(path)`, both returning a `module` or throwing
// `parse_error` with FILE:LINE:COL and what is wrong. The parser is one pass over the bytes with an
// explicit stack of open loops (no recursion, so a nest 100,000 deep can't overflow the C++ stack; it
// is refused beyond `max_loop_depth`), and it never quotes more than a few dozen bytes of a bad token,
// so a 1 MB garbage line gives a one-line message. Target rules come from ir/validate.hpp.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <gca/error.hpp>
#include <gca/ir/source_file.hpp>
#include <gca/ir/module.hpp>
#include <gca/ir/validate.hpp>

namespace gca {

struct parse_options {
  std::uint32_t max_loop_depth = 4096;  // deeper nests are refused with a clear error
  // Targets that `target=NAME` may name besides trn1, trn2 and trn3 (a user's accelerator,
  // examples/custom_accelerator.cpp); tensors are checked against the named one's rules. The first of a
  // name wins, and a known name is never shadowed.
  std::span<const target> targets = {};
  // Pins must also be places the memory's geometry allows (a user's geometry; ir/validate.hpp).
  place_rules rules = {};
};

namespace detail {

template <class = void>
class text_parser {
 public:
  text_parser(std::string_view text, std::string file, parse_options opt)
      : text_(text), file_(std::move(file)), opt_(opt) {}

  module run() {
    module m;
    bool have_module = false;
    while (next_line()) {
      if (tokens_.empty()) continue;
      const token& t = tokens_[0];
      if (!have_module) {
        if (!t.is_word("module")) fail(t, "expected 'module NAME target=TARGET' before " + quote(t));
        parse_module_line(m);
        have_module = true;
        continue;
      }
      if (t.is_word("function")) {
        parse_function(m);
        continue;
      }
      fail(t, "expected 'function NAME core=N {' but found " + quote(t));
    }
    if (!have_module) fail_at({line_ == 0 ? 1 : line_, 1}, "empty file: expected 'module NAME target=TARGET'");
    return m;
  }

 private:
  enum class kind : std::uint8_t { word, name, punct };
  struct token {
    kind k;
    std::string_view text;  // for name: without '%'
    std::uint32_t column;
    bool is_word(std::string_view w) const { return k == kind::word && text == w; }
    bool is_punct(std::string_view p) const { return k == kind::punct && text == p; }
  };

  // ---- lexing ------------------------------------------------------------------------------------

  static bool is_ident_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }
  static bool is_word_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9') || c == '.'; }

  /// Splits the next line into tokens; false at end of input.
  bool next_line() {
    if (pos_ >= text_.size()) return false;
    std::size_t eol = text_.find('\n', pos_);
    if (eol == std::string_view::npos) eol = text_.size();
    line_text_ = text_.substr(pos_, eol - pos_);
    pos_ = eol + 1;
    ++line_;
    tokens_.clear();
    std::size_t i = 0;
    const std::string_view s = line_text_;
    while (i < s.size()) {
      const char c = s[i];
      const auto col = static_cast<std::uint32_t>(i + 1);
      if (c == ' ' || c == '\t' || c == '\r') {
        ++i;
      } else if (c == '#') {
        break;
      } else if (c == '%') {
        std::size_t j = i + 1;
        if (j >= s.size() || !is_ident_start(s[j]))
          fail_at({line_, col}, "a tensor name is '%' then a letter or '_'");
        while (j < s.size() && is_word_char(s[j])) ++j;
        tokens_.push_back({kind::name, s.substr(i + 1, j - i - 1), col});
        i = j;
      } else if (is_word_char(c)) {
        std::size_t j = i;
        while (j < s.size() && is_word_char(s[j])) ++j;
        tokens_.push_back({kind::word, s.substr(i, j - i), col});
        i = j;
      } else if (c == '+' && i + 1 < s.size() && s[i + 1] == '=') {
        tokens_.push_back({kind::punct, s.substr(i, 2), col});
        i += 2;
      } else if (c == '=' || c == ',' || c == ':' || c == '@' || c == '{' || c == '}') {
        tokens_.push_back({kind::punct, s.substr(i, 1), col});
        ++i;
      } else {
        fail_at({line_, col}, "unexpected character " + describe_char(c));
      }
    }
    return true;
  }

  static std::string describe_char(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x21 && u < 0x7f) return std::string("'") + c + "'";
    static constexpr char hex[] = "0123456789abcdef";
    return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
  }

  /// The memory keywords `tg` knows, for "unknown memory" messages.
  static std::string known_memories(const target& tg) {
    std::string known = "sb, psum, dram, dram.shared, dram.debug, reg";
    for (const memory_spec& s : tg.memories) known += ", " + std::string(s.name);
    return known;
  }

  static std::string quote(const token& t) {
    std::string s = t.k == kind::name ? "%" : "";
    s += t.text.size() > 40 ? std::string(t.text.substr(0, 40)) + "..." : std::string(t.text);
    return "'" + s + "'";
  }

  [[noreturn]] void fail_at(source_loc at, const std::string& msg) const {
    throw parse_error(file_, at, msg);
  }
  [[noreturn]] void fail(const token& t, const std::string& msg) const { fail_at({line_, t.column}, msg); }
  [[noreturn]] void fail_eol(const std::string& msg) const {
    fail_at({line_, static_cast<std::uint32_t>(line_text_.size() + 1)}, msg);
  }

  source_loc loc(const token& t) const { return {line_, t.column}; }

  // ---- token helpers ------------------------------------------------------------------------------

  const token& at(std::size_t i, const char* expected) const {
    if (i >= tokens_.size()) fail_eol(std::string("expected ") + expected + " at end of line");
    return tokens_[i];
  }
  // Messages built by append, not by chains of operator+ on temporaries: g++ 12 at -O3 reports a false
  // -Wrestrict inside the inlined std::string concatenation of the latter.
  void expect_punct(std::size_t i, std::string_view p) const {
    if (i >= tokens_.size()) fail_eol(std::string("expected '").append(p).append("' at end of line"));
    const token& t = tokens_[i];
    if (!t.is_punct(p)) fail(t, std::string("expected '").append(p).append("' but found ").append(quote(t)));
  }
  void expect_end(std::size_t i) const {
    if (i < tokens_.size()) fail(tokens_[i], "unexpected " + quote(tokens_[i]) + " at end of statement");
  }
  std::string_view identifier(std::size_t i, const char* what) const {
    const token& t = at(i, what);
    if (t.k != kind::word || !is_ident_start(t.text[0]))
      fail(t, std::string("expected ") + what + " but found " + quote(t));
    return t.text;
  }

  std::uint64_t number(const token& t, std::string_view s, const char* what,
                       std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const {
    if (s.empty()) fail(t, std::string("expected ") + what + " but found " + quote(t));
    std::uint64_t v = 0;
    for (char c : s) {
      if (c < '0' || c > '9') fail(t, std::string("expected ") + what + " but found " + quote(t));
      const auto d = static_cast<std::uint64_t>(c - '0');
      if (v > (max - d) / 10)
        fail(t, std::string(what) + " " + quote(t) + " is too large (at most " + std::to_string(max) + ")");
      v = v * 10 + d;
    }
    return v;
  }

  /// `key=VALUE` spread over three tokens starting at i; returns VALUE's token.
  const token& key_value(std::size_t i, std::string_view key) const {
    const token& k = at(i, (std::string(key) + "=...").c_str());
    if (!k.is_word(key)) fail(k, "expected '" + std::string(key) + "=' but found " + quote(k));
    expect_punct(i + 1, "=");
    return at(i + 2, (std::string(key) + " value").c_str());
  }

  // ---- statements ---------------------------------------------------------------------------------

  void parse_module_line(module& m) {
    m.name = std::string(identifier(1, "a module name"));
    const token& t = key_value(2, "target");
    std::optional<target> tg = find_target(t.text);
    for (const target& user : opt_.targets)
      if (!tg && user.name == t.text) tg = user;
    if (!tg) {
      std::string known = "trn1, trn2, trn3";
      for (const target& user : opt_.targets) known += ", " + std::string(user.name);
      fail(t, "unknown target " + quote(t) + " (known: " + known + ")");
    }
    if (auto problem = target_problem(*tg)) fail(t, *problem);
    m.tgt = *tg;
    expect_end(5);
  }

  struct pending_tensor {
    bool declared = false;
    source_loc first_use;
  };

  void parse_function(module& m) {
    function f;
    f.loc = loc(tokens_[0]);
    f.name = std::string(identifier(1, "a function name"));
    for (const function& g : m.functions)
      if (g.name == f.name) fail(tokens_[1], "function '" + f.name + "' is defined twice");
    const token& c = key_value(2, "core");
    f.core = static_cast<std::uint32_t>(number(c, c.text, "a core index", 1u << 20));
    expect_punct(5, "{");
    expect_end(6);

    names_.clear();
    pending_.clear();
    symbol_ids_.clear();
    for (symbol_id k = 0; k < f.symbols.size(); ++k) symbol_ids_.emplace(f.symbols[k], k);
    struct open_loop {
      std::uint32_t line;
      std::string_view name;
    };
    std::vector<open_loop> loops;
    std::vector<tensor_id> outs, ins;
    for (;;) {
      if (!next_line()) {
        if (!loops.empty())
          fail_at({line_, 1}, "unexpected end of file: missing '}' for loop " + std::string(loops.back().name) +
                                  " opened at line " + std::to_string(loops.back().line));
        fail_at({line_, 1}, "unexpected end of file: missing '}' for function '" + f.name +
                                "' opened at line " + std::to_string(f.loc.line));
      }
      if (tokens_.empty()) continue;
      const token& t = tokens_[0];
      if (t.is_punct("}")) {
        expect_end(1);
        if (loops.empty()) break;
        f.end_loop();
        loops.pop_back();
        continue;
      }
      if (t.is_word("tensor")) {
        parse_tensor(m.tgt, f);
        continue;
      }
      if (t.is_word("loop")) {
        const std::string_view name = identifier(1, "a loop name");
        const token& n = at(2, "a trip count");
        const std::uint64_t trips = number(n, n.text, "a trip count", std::uint64_t{1} << 40);
        if (trips == 0) fail(n, "loop " + std::string(name) + " has 0 trips");
        expect_punct(3, "{");
        expect_end(4);
        if (loops.size() >= opt_.max_loop_depth)
          fail(t, "loops nested deeper than " + std::to_string(opt_.max_loop_depth) + " levels");
        f.begin_loop(intern(f, name), trips, loc(t));
        loops.push_back({line_, name});
        continue;
      }
      if (t.is_word("function") || t.is_word("module"))
        fail(t, "missing '}' before " + quote(t) + " (function '" + f.name + "' is still open)");
      parse_instruction(f, outs, ins);
    }
    finish_function(f);
    m.functions.push_back(std::move(f));
  }

  /// function::intern is linear in the number of symbols; a kernel with 10^5 loops needs a map.
  symbol_id intern(function& f, std::string_view name) {
    auto [it, fresh] = symbol_ids_.try_emplace(std::string(name), static_cast<symbol_id>(f.symbols.size()));
    if (fresh) f.symbols.emplace_back(name);
    return it->second;
  }

  tensor_id use_name(function& f, const token& t) {
    auto [it, fresh] = names_.try_emplace(std::string(t.text), static_cast<tensor_id>(pending_.size()));
    if (fresh) {
      pending_.push_back({false, loc(t)});
      tensor x;
      x.name = std::string(t.text);
      f.tensors.push_back(std::move(x));
    }
    return it->second;
  }

  void parse_tensor(const target& tg, function& f) {
    const token& nt = at(1, "a tensor name");
    if (nt.k != kind::name) fail(nt, "expected a tensor name like %x but found " + quote(nt));
    expect_punct(2, ":");
    const token& sp = at(3, "a memory (sb, psum, dram, dram.shared, dram.debug, reg)");
    tensor x;
    x.name = std::string(nt.text);
    x.loc = loc(nt);
    if (sp.is_word("dram.shared")) x.memory = memory_type::dram, x.space = address_space::shared;
    else if (sp.is_word("dram.debug")) x.memory = memory_type::dram, x.space = address_space::debug;
    else if (const std::optional<memory_type> m = sp.k == kind::word ? find_memory(tg, sp.text) : std::nullopt) x.memory = *m;
    else fail(sp, "unknown memory " + quote(sp) + " (known: " + known_memories(tg) + ")");
    std::size_t i = 4;
    const memory_layout layout = layout_of(tg, x.memory);
    if (layout == memory_layout::registers) {
      x.shape = {1, 4};
    } else {
      const token& sh = at(i++, layout == memory_layout::linear ? "a size in bytes" : "a shape PxB");
      if (sh.k != kind::word) fail(sh, "expected a shape but found " + quote(sh));
      if (layout == memory_layout::linear) {
        if (sh.text.find('x') != std::string_view::npos)
          fail(sh, "a " + std::string(log_name(tg, x.memory)) + " tensor has a size in bytes, not partitions x bytes");
        x.shape = {1, number(sh, sh.text, "a size in bytes")};
      } else {
        const std::size_t xpos = sh.text.find('x');
        if (xpos == std::string_view::npos) fail(sh, "expected a shape PARTITIONSxBYTES but found " + quote(sh));
        x.shape.partitions = static_cast<std::uint32_t>(
            number(sh, sh.text.substr(0, xpos), "a partition count", 1u << 31));
        x.shape.bytes = number(sh, sh.text.substr(xpos + 1), "a byte count");
      }
    }
    if (i < tokens_.size() && (tokens_[i].is_word("input") || tokens_[i].is_word("output"))) {
      x.kind = tokens_[i].is_word("input") ? tensor_kind::input : tensor_kind::output;
      ++i;
    }
    if (i < tokens_.size() && tokens_[i].is_punct("@")) {
      x.at = parse_placement(layout, x.memory == memory_type::dram ? "a DRAM address" : "a byte offset", i + 1, i);
      x.pinned = true;
    }
    if (i < tokens_.size()) i = parse_origin(x, i);
    expect_end(i);
    if (auto problem = shape_problem(tg, x)) fail(tokens_[4 < tokens_.size() ? 4 : 3], *problem);
    if (auto problem = placement_problem(tg, x)) fail(tokens_[placement_token_], *problem);
    if (!opt_.rules.allows(x)) fail(tokens_[placement_token_], place_rule_problem(tg, x));
    if (x.memory != memory_type::dram && x.space != address_space::local)
      fail(sp, "only DRAM tensors can be shared or debug");
    const tensor_id id = use_name(f, nt);
    if (pending_[id].declared) {
      fail(nt, "tensor %" + x.name + " is declared twice (first at line " +
                   std::to_string(f.tensors[id].loc.line) + ")");
    }
    pending_[id].declared = true;
    f.tensors[id] = std::move(x);
    declared_order_.push_back(id);
  }

  /// `slot_of %t`, `temp_of %t` or `split_of %t` at token i (docs/FORMAT.md, "Origins"); %t must be
  /// declared before the tensor, so origins never form a cycle. Returns the index after it (i if none).
  std::size_t parse_origin(tensor& x, std::size_t i) {
    const token& k = tokens_[i];
    for (origin_kind o : {origin_kind::spill_slot, origin_kind::spill_temp, origin_kind::split_web})
      if (k.is_word(origin_keyword(o))) x.origin = o;
    if (x.origin == origin_kind::user) return i;
    const token& n = at(i + 1, "the tensor it stands for");
    if (n.k != kind::name) fail(n, "expected a tensor name like %x after " + quote(k) + " but found " + quote(n));
    const auto it = names_.find(std::string(n.text));
    if (it == names_.end() || !pending_[it->second].declared)
      fail(n, "tensor %" + std::string(n.text) + " must be declared before the tensors that stand for it");
    x.origin_of = it->second;
    return i + 2;
  }

  placement parse_placement(memory_layout layout, const char* address, std::size_t i, std::size_t& next) {
    placement p;
    const token& a = at(i, "a placement");
    placement_token_ = i;
    if (a.k != kind::word) fail(a, "expected a placement but found " + quote(a));
    switch (layout) {
      case memory_layout::rectangles:
        p.partition = static_cast<std::uint32_t>(number(a, a.text, "a start partition", 1u << 31));
        expect_punct(i + 1, ":");
        {
          const token& b = at(i + 2, "a byte offset");
          p.offset = number(b, b.text, "a byte offset");
        }
        next = i + 3;
        break;
      case memory_layout::linear:
        p.offset = number(a, a.text, address);
        next = i + 1;
        break;
      case memory_layout::registers:
        if (a.text.size() < 2 || a.text[0] != 'r') fail(a, "expected a register like r5 but found " + quote(a));
        p.offset = number(a, a.text.substr(1), "a register number", 1u << 31);
        next = i + 1;
        break;
    }
    return p;
  }

  void parse_instruction(function& f, std::vector<tensor_id>& outs, std::vector<tensor_id>& ins) {
    outs.clear();
    ins.clear();
    std::size_t i = 0;
    bool rmw = false;
    if (tokens_[0].k == kind::name) {
      for (;;) {
        outs.push_back(use_name(f, tokens_[i]));
        ++i;
        const token& sep = at(i, "'=', '+=' or ','");
        if (sep.is_punct(",")) {
          ++i;
          const token& n = at(i, "a tensor name");
          if (n.k != kind::name) fail(n, "expected a tensor name but found " + quote(n));
          continue;
        }
        if (sep.is_punct("=")) break;
        if (sep.is_punct("+=")) {
          rmw = true;
          break;
        }
        fail(sep, "expected '=', '+=' or ',' but found " + quote(sep));
      }
      ++i;
    }
    const token& opt = at(i, "an opcode");
    if (opt.k != kind::word || !is_ident_start(opt.text[0]))
      fail(opt, "expected an opcode but found " + quote(opt));
    if (opt.is_word("tensor") || opt.is_word("loop") || opt.is_word("function") || opt.is_word("module"))
      fail(opt, quote(opt) + " is a keyword, not an opcode");
    const source_loc where = loc(tokens_[0]);
    ++i;
    if (i < tokens_.size()) {
      for (;;) {
        const token& n = at(i, "a tensor name");
        if (n.k != kind::name) fail(n, "expected a tensor name but found " + quote(n));
        ins.push_back(use_name(f, n));
        ++i;
        if (i == tokens_.size()) break;
        if (!tokens_[i].is_punct(",")) fail(tokens_[i], "expected ',' but found " + quote(tokens_[i]));
        ++i;
        if (i == tokens_.size()) fail_eol("expected a tensor name after ','");
      }
    }
    const symbol_id opcode = intern(f, opt.text);
    if (op::is_move(opcode) && (outs.size() != 1 || ins.size() != 1 || rmw))
      fail(opt, "'" + std::string(opt.text) + "' moves a value: it takes '%out = " + std::string(opt.text) +
                    " %in' (one output, one input, '=')");
    f.add_instruction(opcode, outs, ins, rmw, where);
  }

  /// Checks every used name was declared, then renumbers tensors into declaration order.
  void finish_function(function& f) {
    for (std::size_t id = 0; id < pending_.size(); ++id)
      if (!pending_[id].declared)
        fail_at(pending_[id].first_use, "tensor %" + f.tensors[id].name + " is used but never declared");
    std::vector<tensor_id> remap(f.tensors.size());
    std::vector<tensor> ordered;
    ordered.reserve(f.tensors.size());
    for (tensor_id id : declared_order_) {
      remap[id] = static_cast<tensor_id>(ordered.size());
      ordered.push_back(std::move(f.tensors[id]));
    }
    f.tensors = std::move(ordered);
    for (tensor_id& x : f.operands) x = remap[x];
    for (tensor& x : f.tensors)
      if (x.origin_of != no_tensor) x.origin_of = remap[x.origin_of];
    declared_order_.clear();
  }

  std::string_view text_;
  std::string file_;
  parse_options opt_;
  std::size_t pos_ = 0;
  std::uint32_t line_ = 0;
  std::string_view line_text_;
  std::vector<token> tokens_;
  std::unordered_map<std::string, tensor_id> names_;  // lookup only: never iterated
  std::unordered_map<std::string, symbol_id> symbol_ids_;  // lookup only: never iterated
  std::vector<pending_tensor> pending_;
  std::vector<tensor_id> declared_order_;
  std::size_t placement_token_ = 0;
};

}  // namespace detail

/// Parses a whole module. `file` is only used in error messages.
template <class = void>
module parse(std::string_view text, std::string file = "<input>", parse_options opt = {}) {
  return detail::text_parser(text, std::move(file), opt).run();
}

/// Reads and parses a file; a file that can't be read is a parse_error "FILE: error: cannot ...".
template <class = void>
module parse_file(const std::string& path, parse_options opt = {}) {
  return parse(read_source_file(path), path, opt);
}

/// The compiled mode (gca/compiled.hpp) compiles the parser once, into the gca_compiled library: a file
/// built with -DGCA_COMPILED that parses a kernel declares these two instantiations instead of making
/// them (the parser was about half of such a file's compile time: docs/PERFORMANCE.md, "Compile time").
/// gca/compiled.cpp expands the same list as the definitions.
#define GCA_COMPILED_PARSER(Prefix)                                                   \
  Prefix template module parse<void>(std::string_view, std::string, parse_options); \
  Prefix template module parse_file<void>(const std::string&, parse_options);
#ifdef GCA_COMPILED
GCA_COMPILED_PARSER(extern)
#endif

}  // namespace gca
