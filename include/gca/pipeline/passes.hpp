// gca/pipeline/passes.hpp — the run-time side: passes, the pass registry, and the passes gca implements
// besides the allocators.
//
// Provides `backend_pass` (a named, type-erased step over a module), `pass_registry` (name -> factory
// `std::function<backend_pass(const pass_options&)>`, the Neuron allocator's GeneratorRegistration), the run-time
// constructor `make_coloring_allocator(Type, post_lnk, from, to)` that rejects a tuple breaking an
// invariant with its error code, and gca's own non-allocator passes: memory analysis, bir_linker,
// sync_shared_allocations, report_stats. `default_registry()` registers all of them. An unregistered name
// is the Neuron allocator's error: "Backend pass: <name> is not registered!".
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gca/drivers/allocate.hpp>  // detail::tensor_rollback (and the drivers the registry builds)
#include <gca/engine/observer.hpp>
#include <gca/error.hpp>
#include <gca/ir/module.hpp>

namespace gca {

/// What every pass factory gets: allocator options and where log lines go (nullptr: silent).
struct pass_options {
  allocator_options alloc;
  std::ostream* log = nullptr;  // the Neuron allocator's log lines (`gca-alloc -v`)
};

/// One step of a pipeline. `run` edits the module in place or throws (leaving it unchanged).
struct backend_pass {
  std::string name;
  std::function<pass_report(module&)> run;
};

class pass_registry {
 public:
  using factory = std::function<backend_pass(const pass_options&)>;

  void add(std::string name, factory f) { factories_[std::move(name)] = std::move(f); }
  bool contains(std::string_view name) const { return factories_.find(std::string(name)) != factories_.end(); }
  template <class = void>
  backend_pass create(std::string_view name, const pass_options& opt) const {
    auto it = factories_.find(std::string(name));
    if (it == factories_.end()) throw input_error("Backend pass: " + std::string(name) + " is not registered!");
    return it->second(opt);
  }
  /// Registered names, sorted.
  template <class = void>
  std::vector<std::string> names() const {
    std::vector<std::string> v;
    for (const auto& [k, f] : factories_) v.push_back(k);
    return v;
  }

 private:
  std::map<std::string, factory> factories_;  // ordered: names() is deterministic
};

/// A pass named `name` that runs allocator `a` (an instantiation of coloring_allocator or of the with-loop
/// driver, with any policies), logging the Neuron allocator's lines to `log` when set. How a user's
/// allocator joins a pass_registry (`add`) and so the pipelines: examples/custom_accelerator.cpp
/// registers its accumulator allocator under "coloring_allocator_psum".
template <class Allocator>
backend_pass allocator_pass(std::string name, Allocator a, std::ostream* log = nullptr) {
  return {std::move(name), [a = std::move(a), log](module& m) {
            if (log) {
              stream_observer obs{log, &m.tgt};
              return a.run(m, obs);
            }
            return a.run(m);
          }};
}

namespace detail {

template <class Allocator>
backend_pass wrap_allocator(std::string name, const pass_options& opt) {
  return allocator_pass(std::move(name), Allocator(opt.alloc), opt.log);
}

/// wrap_allocator of registration k (run time) over the table's allocator types (compile time).
template <std::size_t... K>
backend_pass wrap_registered(std::size_t k, std::string name, const pass_options& opt, std::index_sequence<K...>) {
  backend_pass out;
  (void)((k == K ? (out = wrap_allocator<registered_allocator<K>>(std::move(name), opt), true) : false) || ...);
  return out;
}

}  // namespace detail

/// the Neuron allocator's constructor called with a tuple built at run time (a registry, a config file). A tuple
/// that breaks an invariant is an input_error carrying the code; to_space other than Local is refused
/// (no registration exercises it and its meaning is unknown, docs/HARDWARE.md section 1); so is a memory a
/// target adds, which has no standard allocator (its user registers one: docs/ALLOCATOR.md, "A memory of
/// your own").
/// A function template only so that the nine drivers it names are instantiated in the files that call it,
/// not in every file that includes this header (docs/PERFORMANCE.md, "Compile time").
template <class = void>
backend_pass make_coloring_allocator(memory_type type, bool post_link, address_space from, address_space to,
                                     const pass_options& opt = {}) {
  const std::string memory =
      is_user_memory(type) ? "memory " + std::to_string(static_cast<unsigned>(type)) : std::string(to_string(type));
  if (const int code = invariant_violation(type, post_link, from); code != 0)
    throw input_error("ColoringAllocator(" + memory + ", post_lnk=" +
                      (post_link ? "true" : "false") + ", " + std::string(to_string(from)) +
                      "): " + std::string(invariant_message(code)));
  if (to != address_space::local)
    throw input_error("ColoringAllocator: to_space " + std::string(to_string(to)) +
                      " is not supported (every registration passes Local)");
  if (is_user_memory(type))
    throw input_error("ColoringAllocator: " + memory +
                      " is one a target adds; it has no standard allocator (register a coloring_allocator "
                      "with its geometry through allocator_pass)");
  const std::size_t k = registration_index(type, post_link, from);
  if (k == registration_count)  // DRAM debug after linking: a valid tuple no registration uses
    return detail::wrap_allocator<coloring_allocator<memory_type::dram, true, address_space::debug>>(
        "coloring_allocator_dram_debug_post_lnk", opt);
  return detail::wrap_registered(k, std::string(registrations[k].name), opt,
                                 std::make_index_sequence<registration_count>{});
}

// ---- gca's non-allocator passes ------------------------------------------------------------------

/// Per function and memory: the high-water mark (highest end of a placed tensor: bytes per partition for
/// SB/PSUM, bytes for DRAM, registers for REG; a memory the target adds after the four, in its unit) and the footprint (bytes per partition x partitions, summed
/// over distinct placed tensors, i.e. what would be needed with no reuse).
struct memory_usage {
  std::string function;
  memory_type memory = memory_type::sb;
  std::string_view name;  // the memory's log name (log_name(target, memory))
  std::uint64_t high_water = 0;
  std::uint64_t footprint = 0;
  std::size_t tensors = 0;   // placed tensors
  std::size_t unplaced = 0;  // tensors without a place yet
};

template <class = void>
std::vector<memory_usage> analyze_memory(const module& m) {
  std::vector<memory_usage> out;
  std::vector<memory_type> memories{memory_type::psum, memory_type::sb, memory_type::dram, memory_type::reg};
  for (std::size_t k = 0; k < m.tgt.memories.size(); ++k)
    memories.push_back(static_cast<memory_type>(first_user_memory + k));
  for (const function& f : m.functions)
    for (memory_type mt : memories) {
      memory_usage u;
      u.function = f.name;
      u.memory = mt;
      u.name = log_name(m.tgt, mt);
      for (const tensor& t : f.tensors) {
        if (t.memory != mt) continue;
        if (!t.at) {
          ++u.unplaced;
          continue;
        }
        ++u.tensors;
        const std::uint64_t end = mt == memory_type::reg ? t.at->offset + 1 : t.at->offset + t.shape.bytes;
        u.high_water = std::max(u.high_water, end);
        u.footprint += mt == memory_type::reg ? 1 : std::uint64_t{t.shape.partitions} * t.shape.bytes;
      }
      if (u.tensors + u.unplaced > 0) out.push_back(u);
    }
  return out;
}

template <class = void>
std::string format_memory(const std::vector<memory_usage>& v, std::string_view title) {
  std::ostringstream os;
  for (const memory_usage& u : v)
    os << title << ": function '" << u.function << "' " << u.name << " high-water " << u.high_water
       << " footprint " << u.footprint << " placed " << u.tensors << " unplaced " << u.unplaced << '\n';
  return os.str();
}

/// sync_shared_allocations: every function's copy of a shared buffer takes the place the buffer has in
/// the first function that placed it; copies placed differently are an error (the buffer is one).
template <class = void>
void sync_shared_allocations(module& m) {
  std::map<std::string, placement> where;  // lookup only
  for (const function& f : m.functions)
    for (const tensor& t : f.tensors)
      if (t.memory == memory_type::dram && t.space == address_space::shared && t.at) {
        auto [it, fresh] = where.emplace(t.name, *t.at);
        if (!fresh && it->second != *t.at)
          throw input_error("sync_shared_allocations: shared tensor %" + t.name +
                            " has different places in different functions");
      }
  for (function& f : m.functions)
    for (tensor& t : f.tensors)
      if (t.memory == memory_type::dram && t.space == address_space::shared && !t.at) {
        auto it = where.find(t.name);
        if (it != where.end()) t.at = it->second;
      }
}

/// extend_shared_lifetimes: a shared buffer lives as long as any core runs, in every core. Every function
/// that does not declare a placed shared buffer of the module gets a declaration of it (same shape and
/// place, untouched), so the DRAM colorers that run later on that function (debug buffers, post-link)
/// keep clear of it over its whole body, as they do for the buffers it declares itself. Returns the number
/// of declarations added.
template <class = void>
std::size_t extend_shared_lifetimes(module& m) {
  std::vector<const tensor*> shared;  // first placed declaration of each name, in module order
  for (const function& f : m.functions)
    for (const tensor& t : f.tensors)
      if (t.memory == memory_type::dram && t.space == address_space::shared && t.at &&
          std::none_of(shared.begin(), shared.end(), [&](const tensor* x) { return x->name == t.name; }))
        shared.push_back(&t);
  std::vector<tensor> copies;
  for (const tensor* x : shared) {
    tensor c = *x;
    c.kind = tensor_kind::internal;  // this core neither reads it at entry nor owes it at exit
    c.loc = {};
    copies.push_back(std::move(c));
  }
  std::size_t added = 0;
  for (function& f : m.functions)
    for (const tensor& c : copies)
      if (f.find_tensor(c.name) == no_tensor) {
        f.tensors.push_back(c);
        ++added;
      }
  return added;
}

/// bir_linker: the per-core functions become one image. Core-local DRAM (local and debug, except user
/// pins) of function k is relocated into region k; regions are stacked above every shared buffer and
/// every pinned byte, in function order, each aligned to the DRAM alignment. Cores run concurrently, so
/// after linking no two cores' DRAM share a byte (the post-link allocators then recolor it tighter).
template <class = void>
void bir_linker(module& m) {
  const std::uint64_t align = m.tgt.dram_alignment;
  auto round_up = [align](std::uint64_t x) { return (x + align - 1) / align * align; };
  std::uint64_t base = 0;
  for (const function& f : m.functions)
    for (const tensor& t : f.tensors)
      if (t.memory == memory_type::dram && t.at && (t.space == address_space::shared || t.pinned))
        base = std::max(base, t.at->offset + t.shape.bytes);
  base = round_up(base);
  for (function& f : m.functions) {
    std::uint64_t region = 0;
    for (tensor& t : f.tensors) {
      if (t.memory != memory_type::dram || !t.at || t.space == address_space::shared || t.pinned) continue;
      region = std::max(region, t.at->offset + t.shape.bytes);
    }
    for (tensor& t : f.tensors) {
      if (t.memory != memory_type::dram || !t.at || t.space == address_space::shared || t.pinned) continue;
      t.at->offset += base;
      if (t.at->offset + t.shape.bytes > m.tgt.dram_bytes)
        throw allocation_error("bir_linker: the linked image does not fit in DRAM (function '" + f.name + "')");
    }
    base = round_up(base + region);
  }
}

/// The registry with every pass gca implements: the nine allocators, memory analysis under any
/// `memory_analysis_after_<pass>` name (register those names as needed with `add_memory_analysis`),
/// sync_shared_allocations, bir_linker, report_stats.
template <class = void>
void add_memory_analysis(pass_registry& r, const std::string& name) {
  r.add(name, [name](const pass_options& o) {
    std::ostream* log = o.log;
    return backend_pass{name, [name, log](module& m) {
                          const std::string s = format_memory(analyze_memory(m), name);
                          if (log) *log << s;
                          return pass_report{name, {}};
                        }};
  });
}

/// (A function template for the reason make_coloring_allocator is one.)
template <class = void>
pass_registry default_registry() {
  pass_registry r;
  for (const registration& g : registrations)
    r.add(std::string(g.name), [g](const pass_options& o) {
      return make_coloring_allocator(g.type, g.post_link, g.from, address_space::local, o);
    });
  r.add("coloring_allocator_with_loop", [](const pass_options& o) {
    return detail::wrap_allocator<coloring_allocator_with_loop>("coloring_allocator_with_loop", o);
  });
  // Module transforms leave the module as it was when they fail. These three edit tensors only (places,
  // and declarations appended), so the tensor lists are saved and put back on failure instead of the
  // whole module being copied (at 10^6 instructions a copy cost more than the transform).
  auto transform = [&r](std::string name, auto fn) {
    r.add(name, [name, fn](const pass_options&) {
      return backend_pass{name, [name, fn](module& m) {
                            detail::tensor_rollback undo(m);
                            fn(m);
                            undo.keep();
                            return pass_report{name, {}};
                          }};
    });
  };
  transform("sync_shared_allocations", [](module& m) { sync_shared_allocations(m); });
  transform("extend_shared_lifetimes", [](module& m) { extend_shared_lifetimes(m); });
  transform("bir_linker", [](module& m) { bir_linker(m); });
  r.add("report_stats", [](const pass_options& o) {
    std::ostream* log = o.log;
    return backend_pass{"report_stats", [log](module& m) {
                          if (log) *log << format_memory(analyze_memory(m), "report_stats");
                          return pass_report{"report_stats", {}};
                        }};
  });
  return r;
}

}  // namespace gca
