// Reliability tests (docs/RELIABILITY.md): every malformed input of tests/bad_inputs gives exactly its
// expected message, API misuse is refused with the documented errors, allocation is deterministic in one
// process and across processes, a failed allocation leaves the module exactly as it was, and generated
// programs of varied pressure, loop depth and core count allocate at -O2 and -O6 and verify.
// Library bugs found by fuzzing are kept at the end as regression tests, each with its input in fuzz/corpus.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <gca/gca.hpp>

#include "support/random_program.hpp"

namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string chomp(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

/// What gca-alloc refuses an input with (tests/bad_inputs/README.md): the parse_error line, validate's
/// input_error line, or the static check's lines for every function that fails; "" when accepted.
std::string refusal(const std::string& text, const std::string& name) {
  gca::module m;
  try {
    m = gca::parse(text, name);
    gca::validate(m);
  } catch (const gca::parse_error& e) {
    // The accessors agree with the formatted line.
    CHECK(e.file() == name);
    CHECK(std::string(e.what()) ==
          name + ':' + std::to_string(e.line()) + ':' + std::to_string(e.column()) + ": error: " + e.message());
    return std::string(e.what()) + '\n';
  } catch (const gca::input_error& e) {
    return std::string(e.what()) + '\n';
  }
  std::string out;
  for (const gca::function& f : m.functions) out += gca::static_check(f).message(f, name);
  return out;
}

/// The gca-alloc next to this test binary (build*/examples/gca-alloc), else build/examples/gca-alloc.
std::string gca_alloc_binary() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path p = self.parent_path().parent_path() / "examples" / "gca-alloc";
    if (fs::exists(p)) return p.string();
  }
  const fs::path p = fs::path(GCA_SOURCE_DIR) / "build" / "examples" / "gca-alloc";
  return fs::exists(p) ? p.string() : std::string();
}

/// A fresh scratch directory for this process.
fs::path scratch_dir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("gca-reliability-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// Runs a shell command line; returns its exit status (-1 if it did not exit normally).
int run(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  if (rc == -1 || !WIFEXITED(rc)) return -1;
  return WEXITSTATUS(rc);
}

/// Runs `schedule` pass by pass as run_pipeline(..., {skip_unregistered = true}) does, checking that a pass
/// that throws leaves the module exactly as it was; rethrows.
void run_checked(gca::module& m, const std::vector<std::string>& schedule, const gca::pass_options& popt = {}) {
  static const gca::pass_registry reg = gca::default_registry();
  for (const std::string& name : schedule) {
    if (!reg.contains(name)) continue;
    const gca::backend_pass p = reg.create(name, popt);
    const std::string before = gca::print(m);
    try {
      (void)p.run(m);
    } catch (...) {
      INFO("pass " << name << " threw and changed the module");
      CHECK(gca::print(m) == before);
      throw;
    }
  }
}

void allocate_all(gca::module& m, int level, const gca::pass_options& popt = {}) {
  gca::pipeline_config cfg;
  cfg.optlevel = level;
  run_checked(m, gca::build_pipeline(cfg), popt);
  run_checked(m, gca::build_post_link_pipeline(), popt);
}

std::string allocated_text(const std::string& path, int level) {
  gca::module m = gca::parse_file(path);
  allocate_all(m, level);
  return gca::print(m);
}

std::uint64_t env_count(const char* name, std::uint64_t dflt) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return dflt;
  return std::strtoull(v, nullptr, 10);
}

/// Varied generator options for program `k` (pressure, loop depth, cores, target, pins).
gca::test::random_program_options varied(std::uint64_t k) {
  gca::test::random_program_options o;
  o.seed = 1000 + k;
  o.tgt = k % 3 == 0 ? gca::trn1 : k % 3 == 1 ? gca::trn2 : gca::trn3;
  o.functions = 1 + static_cast<std::uint32_t>(k % 3);
  o.max_loop_depth = static_cast<std::uint32_t>(k % 5);
  o.instructions = 20 + static_cast<std::uint32_t>(k % 4) * 10;
  static constexpr double pressures[] = {0.3, 0.7, 1.0, 1.4, 2.0};
  o.pressure = pressures[(k / 3) % 5];
  o.pin_probability = k % 7 == 0 ? 0.3 : 0.1;
  o.max_trips = k % 2 == 0 ? 8 : 1000;
  o.shared_tensors = static_cast<std::uint32_t>(k % 3);
  return o;
}

}  // namespace

// ---- (1) every malformed input gives exactly its expected message -------------------------------

TEST_CASE("bad inputs: every file of tests/bad_inputs gives exactly its expected message") {
  const fs::path dir = fs::path(GCA_SOURCE_DIR) / "tests" / "bad_inputs";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".gca") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 30);
  int parse_errors = 0, static_failures = 0;
  for (const fs::path& p : files) {
    const std::string name = p.filename().string();
    CAPTURE(name);
    fs::path exp = p;
    exp.replace_extension(".expected");
    REQUIRE_MESSAGE(fs::exists(exp), "missing " << exp.filename().string());
    const std::string expected = read_all(exp);
    const std::string got = refusal(read_all(p), name);
    CHECK(chomp(got) == chomp(expected));
    CHECK(!got.empty());
    parse_errors += got.rfind(name + ':', 0) == 0;
    static_failures += got.rfind("Bad input file - failed static checks.", 0) == 0;
  }
  CHECK(parse_errors >= 30);
  CHECK(static_failures >= 3);
}

TEST_CASE("bad inputs: gca-alloc prints exactly the expected message and exits 1") {
  const std::string bin = gca_alloc_binary();
  if (bin.empty()) {
    MESSAGE("skipped: no gca-alloc binary (build the examples)");
    return;
  }
  const fs::path dir = fs::path(GCA_SOURCE_DIR) / "tests" / "bad_inputs";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".gca") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  const fs::path err = scratch_dir() / "stderr.txt";
  for (const fs::path& p : files) {
    const std::string name = p.filename().string();
    CAPTURE(name);
    fs::path exp = p;
    exp.replace_extension(".expected");
    // --target trn2 makes the tool run gca::validate (every parsable bad input targets trn2).
    const int rc = run("cd " + shell_quote(dir.string()) + " && " + shell_quote(bin) + " --check --target trn2 " +
                       shell_quote(name) + " >/dev/null 2>" + shell_quote(err.string()));
    CHECK(rc == 1);
    CHECK(chomp(read_all(err)) == chomp(read_all(exp)));
  }
}

// ---- (2) API misuse ------------------------------------------------------------------------------

TEST_CASE("API misuse: unregistered passes, invariant-breaking tuples, rules of another target") {
  using gca::address_space;
  using gca::memory_type;
  const gca::pass_registry reg = gca::default_registry();
  CHECK_THROWS_WITH_AS(reg.create("coloring_allocator_hbm", {}), "Backend pass: coloring_allocator_hbm is not registered!",
                       gca::input_error);
  CHECK_THROWS_WITH_AS(reg.create("", {}), "Backend pass:  is not registered!", gca::input_error);

  // run_pipeline without skip_unregistered: the unknown name fails and the passes before it keep effect.
  gca::module m = gca::parse_file(std::string(GCA_SOURCE_DIR) + "/examples/kernels/matmul.gca");
  const std::string before = gca::print(m);
  CHECK_THROWS_WITH_AS(gca::run_pipeline(m, {"no_such_pass"}, reg, {}), "Backend pass: no_such_pass is not registered!",
                       gca::input_error);
  CHECK(gca::print(m) == before);
  CHECK_THROWS_WITH_AS(gca::run_pipeline(m, {"coloring_allocator_psum", "no_such_pass"}, reg, {}),
                       "Backend pass: no_such_pass is not registered!", gca::input_error);
  CHECK(gca::print(m) != before);  // the PSUM pass ran

  // Run-time tuples that break an invariant, each with its code.
  const struct {
    memory_type type;
    bool post_link;
    address_space from;
    const char* what;
  } bad[] = {
      {memory_type::sb, true, address_space::local,
       "ColoringAllocator(sb, post_lnk=true, local): error 508: SB is allocated before linking (post_lnk must be false)"},
      {memory_type::sb, false, address_space::shared,
       "ColoringAllocator(sb, post_lnk=false, shared): error 509: SB is core-local (from_space must be Local)"},
      {memory_type::sb, false, address_space::debug,
       "ColoringAllocator(sb, post_lnk=false, debug): error 509: SB is core-local (from_space must be Local)"},
      {memory_type::psum, true, address_space::local,
       "ColoringAllocator(psum, post_lnk=true, local): error 510: PSUM is allocated before linking (post_lnk must be "
       "false)"},
      {memory_type::psum, false, address_space::shared,
       "ColoringAllocator(psum, post_lnk=false, shared): error 511: PSUM is core-local (from_space must be Local)"},
      {memory_type::reg, true, address_space::local,
       "ColoringAllocator(reg, post_lnk=true, local): error 512 (gca): REG is core-local and not post-link"},
  };
  for (const auto& b : bad) {
    CAPTURE(b.what);
    CHECK_THROWS_WITH_AS(gca::make_coloring_allocator(b.type, b.post_link, b.from, address_space::local), b.what,
                         gca::input_error);
  }
  CHECK_THROWS_WITH_AS(gca::make_coloring_allocator(memory_type::dram, false, address_space::local, address_space::shared),
                       "ColoringAllocator: to_space shared is not supported (every registration passes Local)",
                       gca::input_error);
  CHECK(gca::make_coloring_allocator(memory_type::dram, false, address_space::debug, address_space::local).name ==
        "coloring_allocator_dram_debug");

  // Pipeline configurations that do not exist.
  gca::pipeline_config cfg;
  cfg.optlevel = 9;
  CHECK_THROWS_WITH_AS(gca::build_pipeline(cfg), "optlevel 9 does not exist (use 1, 2, 3, 6 or 7)", gca::input_error);
  cfg = {};
  cfg.allocator = "greedy";
  CHECK_THROWS_WITH_AS(gca::build_pipeline(cfg), "--allocator greedy: unknown allocator family (known: coloring, lsa)",
                       gca::input_error);

  // API-built modules: an unbalanced loop, an operand out of range.
  gca::function f;
  f.name = "g";
  CHECK_THROWS_WITH_AS(f.end_loop(), "function 'g': end_loop() without a loop", gca::input_error);
  gca::module api;
  api.functions.push_back(f);
  api.functions[0].begin_loop(api.functions[0].intern("l"), 2);
  CHECK_THROWS_WITH_AS(gca::validate(api), "function 'g': a loop was begun and never ended", gca::input_error);
}

TEST_CASE("API misuse: a module valid on trn3 switched to trn1 breaks trn1's rules; the allocators refuse it unchanged") {
  gca::module m = gca::parse(R"(module m target=trn3
function f core=0 {
  tensor %x : dram 64 input
  tensor %y : dram 64 output
  tensor %a : sb 128x240000
  tensor %p : psum 128x4096
  tensor %w : sb 64x64 @ 64:200000
  %a = load %x
  %w = load %x
  %p = memset
  %y = add %a, %p, %w
}
)");
  CHECK_NOTHROW(gca::validate(m));
  m.tgt = gca::trn1;
  CHECK_THROWS_WITH_AS(gca::validate(m),
                       "function 'f', tensor %a: 240000 bytes per partition is more than the 180224 usable in SB on trn1",
                       gca::input_error);
  const std::string before = gca::print(m);
  CHECK_THROWS_WITH_AS(gca::coloring_allocator_psum{}.run(m),
                       doctest::Contains("couldn't allocate every tensor in PSUM and spilling can't help (%p)"),
                       gca::allocation_error);
  CHECK(gca::print(m) == before);
  CHECK_THROWS_WITH_AS(gca::coloring_allocator_sb{}.run(m),
                       doctest::Contains("couldn't allocate every tensor in SB and spilling can't help"),
                       gca::allocation_error);
  CHECK(gca::print(m) == before);
  CHECK_THROWS_AS(gca::coloring_allocator_with_loop{}.run(m), gca::allocation_error);
  CHECK(gca::print(m) == before);

  // Only the pin breaks trn1's rules: validate names it; the allocator must not keep an impossible pin.
  gca::module pin = gca::parse(R"(module m target=trn3
function f core=0 {
  tensor %x : dram 64 input
  tensor %y : dram 64 output
  tensor %w : sb 64x64 @ 64:200000
  %w = load %x
  %y = store %w
}
)");
  pin.tgt = gca::trn1;
  CHECK_THROWS_WITH_AS(gca::validate(pin),
                       "function 'f', tensor %w: bytes 200000..200063 are out of bounds (180224 bytes per partition)",
                       gca::input_error);
  const std::string pin_before = gca::print(pin);
  try {
    gca::coloring_allocator_sb{}.run(pin);
    // If it "succeeds", the verifier must still see the pin out of bounds (the allocator never moves pins).
    CHECK(!gca::verify(pin).ok());
  } catch (const gca::allocation_error&) {
    CHECK(gca::print(pin) == pin_before);
  } catch (const gca::input_error&) {
    CHECK(gca::print(pin) == pin_before);
  }
}

// ---- (3) determinism -----------------------------------------------------------------------------

TEST_CASE("determinism: the same input prints the same allocation, twice in one process") {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(fs::path(GCA_SOURCE_DIR) / "examples" / "kernels"))
    if (e.path().extension() == ".gca") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  REQUIRE(!files.empty());
  for (const std::string& path : files)
    for (int level : {2, 6}) {
      CAPTURE(path);
      CAPTURE(level);
      const std::string a = allocated_text(path, level);
      const std::string b = allocated_text(path, level);
      CHECK(a == b);
      CHECK(gca::print(gca::parse(a)) == a);
    }
  for (std::uint64_t k = 0; k < 6; ++k) {
    CAPTURE(k);
    gca::module a = gca::test::random_program(varied(k));
    gca::module b = gca::test::random_program(varied(k));
    REQUIRE(gca::print(a) == gca::print(b));
    try {
      allocate_all(a, 6);
    } catch (const gca::allocation_error&) {
      CHECK_THROWS_AS(allocate_all(b, 6), gca::allocation_error);
      continue;
    }
    allocate_all(b, 6);
    CHECK(gca::print(a) == gca::print(b));
  }
}

TEST_CASE("determinism: two gca-alloc processes print byte-identical allocations") {
  const std::string bin = gca_alloc_binary();
  if (bin.empty()) {
    MESSAGE("skipped: no gca-alloc binary (build the examples)");
    return;
  }
  const fs::path dir = scratch_dir();
  for (const char* kernel : {"attention.gca", "two_core.gca"})
    for (const char* level : {"-O2", "-O6"}) {
      CAPTURE(kernel);
      CAPTURE(level);
      const std::string in = (fs::path(GCA_SOURCE_DIR) / "examples" / "kernels" / kernel).string();
      std::string out[2];
      for (int k = 0; k < 2; ++k) {
        const fs::path o = dir / ("run" + std::to_string(k) + ".gca");
        const int rc = run(shell_quote(bin) + " " + level + " --verify " + shell_quote(in) + " >" +
                           shell_quote(o.string()) + " 2>/dev/null");
        CHECK(rc == 0);
        out[k] = read_all(o);
      }
      CHECK(!out[0].empty());
      CHECK(out[0] == out[1]);
      // ...and the same bytes as this process prints.
      CHECK(out[0] == allocated_text(in, level[2] - '0'));
    }
}

// ---- (4) failure safety --------------------------------------------------------------------------

TEST_CASE("failure safety: an allocation that throws leaves the module printing exactly as before") {
  // Over-subscribed generated programs: every pass that throws must leave the module as it was
  // (run_checked checks that pass by pass); count that some really did throw.
  int threw = 0;
  for (std::uint64_t k = 0; k < 40 && threw < 6; ++k) {
    gca::test::random_program_options o = varied(k);
    o.pressure = 3.0 + static_cast<double>(k % 4);
    o.pin_probability = 0.35;
    o.instructions = 24;
    for (int level : {2, 6}) {
      CAPTURE(k);
      CAPTURE(level);
      gca::module m = gca::test::random_program(o);
      const gca::module original = m;
      try {
        allocate_all(m, level);
        const gca::translation_report v = gca::verify(original, m, {.linked = true});
        INFO(v.message());
        CHECK(v.ok());
      } catch (const gca::allocation_error& e) {
        CHECK(std::string(e.what()).find("spilling can't help") != std::string::npos);
        ++threw;
      }
    }
  }
  CHECK(threw > 0);

  // The watchdog: a deadline of 1e-9 s fires in every allocator, which leaves the module unchanged.
  const gca::module kernel = gca::parse_file(std::string(GCA_SOURCE_DIR) + "/examples/kernels/attention.gca");
  const std::string before = gca::print(kernel);
  gca::pass_options popt;
  popt.alloc.timeout_seconds = 1e-9;
  const gca::pass_registry reg = gca::default_registry();
  int fired = 0;
  for (std::string_view name : gca::allocator_pass_names) {
    CAPTURE(name);
    gca::module m = kernel;
    try {
      (void)reg.create(name, popt).run(m);
    } catch (const gca::timeout_error& e) {
      CHECK(std::string(e.what()) == "GCA is taking too long");
      ++fired;
    }
    CHECK(gca::print(m) == before);  // a pass that did not fire found nothing to place in this kernel
  }
  CHECK(fired >= 4);
  gca::module m = kernel;
  CHECK_THROWS_AS(allocate_all(m, 2, popt), gca::timeout_error);
  CHECK(gca::print(m) == before);
}

// ---- the watchdog inside long loops (gca/watchdog.hpp) -------------------------------------------

namespace {

/// A kernel of `n` independent SB tiles, each loaded, computed and stored: one big function that colors
/// in one attempt (no pressure), so all its time is one coloring.
gca::module wide_kernel(int n) {
  std::string t = "module wide target=trn2\nfunction f core=0 {\n  tensor %x : dram 64 input\n"
                  "  tensor %y : dram 64 output\n  tensor %acc : sb 128x4\n";
  for (int i = 0; i < n; ++i) t += "  tensor %t" + std::to_string(i) + " : sb 128x64\n";
  t += "  %acc = memset\n";
  for (int i = 0; i < n; ++i)
    t += "  %t" + std::to_string(i) + " = load %x\n  %acc = add %acc, %t" + std::to_string(i) + "\n";
  return gca::parse(t + "  %y = store %acc\n}\n");
}

/// The first time the colorer reports its best-of-n loop (inside an attempt, after the fixpoint's own
/// check between attempts), records how long the run took to get there and sleeps until `wake`.
struct sleepy_observer : gca::null_observer {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point wake = std::chrono::steady_clock::time_point::min();
  double reached = -1;  // seconds from start to the first best-of-n report
  void best_of_n(gca::memory_type, std::string_view) {
    if (reached >= 0) return;
    reached = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::this_thread::sleep_until(wake);
  }
};

}  // namespace

TEST_CASE("watchdog: it fires inside a long coloring, not only between fixpoint attempts") {
  // A deadline already past when best-of-n runs (a graph big enough to run its variants on 2 threads)
  // must throw at the first clock reading; without a deadline the same call colors.
  const std::size_t n = 30000;
  std::vector<std::pair<gca::node_id, gca::node_id>> edges;
  for (gca::node_id v = 1; v < n; ++v) edges.emplace_back(v - 1, v);
  for (gca::node_id v = 2; v < n; v += 2) edges.emplace_back(v - 2, v);
  const gca::interference_graph g = gca::build_interference(n, edges);
  const std::vector<gca::extent> sizes(n, gca::extent{1, 64});
  const gca::coloring_problem problem{g, sizes};
  const std::vector<gca::color_options> variants = gca::default_variants();
  const gca::linear_dram dram(1 << 20, 64);
  {
    const gca::watchdog_scope scope(std::chrono::steady_clock::now() - std::chrono::seconds(1));
    CHECK_THROWS_WITH_AS(gca::color_best_of(problem, dram, variants, 2), "GCA is taking too long", gca::timeout_error);
  }
  CHECK(gca::color_best_of(problem, dram, variants, 2).complete());
  // The workers of run_jobs run under the caller's deadline.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::hours(1);
  std::vector<char> inherited(64, 0);
  {
    const gca::watchdog_scope scope(deadline);
    gca::detail::run_jobs(inherited.size(), 4, [&](std::size_t i) { inherited[i] = gca::watchdog_deadline() == deadline; });
  }
  CHECK(std::count(inherited.begin(), inherited.end(), 1) == 64);
  gca::module m = wide_kernel(12000);
  // Through the allocator: the deadline passes during the first attempt (the observer sleeps past it
  // inside color_space, before best-of-n), which used to run to completion and succeed. Now simplify or
  // select stops it and the module is left as it was. The timeout is three times what getting there
  // takes on this machine and build (measured by a first run without a deadline, which also shows that
  // the kernel allocates in one attempt), so the deadline falls inside the attempt.
  gca::module ok = m;
  sleepy_observer measure;
  CHECK(gca::coloring_allocator_sb{}.run(ok, measure).functions[0].second.iterations == 1);
  REQUIRE(measure.reached >= 0);
  const std::string before = gca::print(m);
  gca::allocator_options ao;
  ao.timeout_seconds = 3 * measure.reached + 0.1;
  sleepy_observer obs;
  obs.wake = obs.start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                             std::chrono::duration<double>(ao.timeout_seconds + 0.05));
  CHECK_THROWS_WITH_AS(gca::coloring_allocator_sb(ao).run(m, obs), "GCA is taking too long", gca::timeout_error);
  CHECK(obs.reached >= 0);  // it got inside the attempt before the deadline
  CHECK(gca::print(m) == before);
}

TEST_CASE("watchdog: shared DRAM, colored across the module, stops too and leaves the module unchanged") {
  // 1500 shared buffers in two cores: the shared colorer builds ~10^6 edges and colors them, with no
  // fixpoint around it; it used to ignore the deadline entirely.
  std::string t = "module shared target=trn2\n";
  for (int c = 0; c < 2; ++c) {
    t += "function core" + std::to_string(c) + " core=" + std::to_string(c) + " {\n";
    for (int i = 0; i < 1500; ++i) t += "  tensor %s" + std::to_string(i) + " : dram.shared 64\n";
    t += "  barrier\n}\n";
  }
  gca::module m = gca::parse(t);
  const std::string before = gca::print(m);
  gca::allocator_options ao;
  ao.timeout_seconds = 1e-9;
  CHECK_THROWS_WITH_AS(gca::coloring_allocator_dram_shared(ao).run(m), "GCA is taking too long", gca::timeout_error);
  CHECK(gca::print(m) == before);
  gca::module post = m;
  CHECK_THROWS_AS(gca::coloring_allocator_dram_shared_post_lnk(ao).run(post), gca::timeout_error);
  CHECK(gca::print(post) == before);
  // The same pass with the default watchdog places all of them.
  gca::coloring_allocator_dram_shared{}.run(m);
  for (const gca::function& f : m.functions)
    for (const gca::tensor& x : f.tensors) CHECK(x.at.has_value());
}

// ---- (5) property test over generated programs ---------------------------------------------------

TEST_CASE("property: generated programs allocate at -O2 and -O6 and verify") {
  // GCA_PROPERTY_PROGRAMS scales the run (docs/RELIABILITY.md: the long run uses thousands).
  const std::uint64_t n = env_count("GCA_PROPERTY_PROGRAMS", 100);
  std::uint64_t verified = 0, refused = 0, spilled = 0;
  for (std::uint64_t k = 0; k < n; ++k) {
    const gca::test::random_program_options o = varied(k);
    const gca::module original = gca::test::random_program(o);
    for (int level : {2, 6}) {
      CAPTURE(o.seed);
      CAPTURE(level);
      gca::module m = original;
      try {
        allocate_all(m, level);
      } catch (const gca::allocation_error& e) {
        INFO(e.what());
        CHECK(std::string(e.what()).find("spilling can't help") != std::string::npos);
        ++refused;
        continue;
      }
      const gca::translation_report v = gca::verify(original, m, {.linked = true});
      INFO(v.message());
      CHECK(v.ok());
      CHECK(gca::parse(gca::print(m)) == m);
      ++verified;
      for (std::size_t i = 0; i < m.functions.size(); ++i)
        if (m.functions[i].insts.size() > original.functions[i].insts.size()) {
          ++spilled;
          break;
        }
    }
  }
  MESSAGE("property: " << n << " programs x 2 levels: " << verified << " verified (" << spilled << " with spill code), "
                       << refused << " refused (spilling can't help)");
  CHECK(verified > refused);
}

// ---- bugs found by fuzzing and the property test, fixed: regression tests ----------------------------

// FIXED BUG (found by the property test, seed 1042; inputs fuzz/corpus/bug_untouched_unplaced.gca and
// bug_spilled_tensor_unplaced.gca): commit_space (engine/space_colorer.hpp) places a tensor of the space
// that no instruction touches with geom.select(shape, fixed, first_fit), "clear of the fixed nodes"; when
// pins fragment the memory so that no gap fits it, select returns nothing and the tensor stays unplaced,
// so gca::verify reports `unplaced` and gca-alloc --verify exits 3 on a valid input. It happens to
// tensors the input never uses, and to tensors every web of which the spiller renamed (%s0 -> %s0.r1,
// %s0.r2). Such a tensor never holds a value: any legal place (e.g. the first legal start, overlapping
// the pins) would do.
TEST_CASE("regression: an untouched tensor gets a legal place even when pins leave no gap for it") {
  for (const char* file : {"bug_untouched_unplaced.gca", "bug_spilled_tensor_unplaced.gca"})
    for (int level : {2, 6}) {
      CAPTURE(file);
      CAPTURE(level);
      gca::module m = gca::parse(read_all(fs::path(GCA_SOURCE_DIR) / "fuzz" / "corpus" / file));
      const gca::module original = m;
      allocate_all(m, level);
      const gca::translation_report v = gca::verify(original, m, {.linked = true});
      INFO(v.message());
      CHECK(v.ok());
    }
}

// FIXED BUG (found by fuzz/fuzz_alloc; input fuzz/corpus/bug_shared_pinned_first.gca): a dram.shared name pinned
// in the first function that declares it and unpinned in a later one passes validate (which only compares
// two placements when both exist), but coloring_allocator_dram_shared never puts it in its `names` (its
// first declaration is placed) and then looks the later, unplaced copy up with `where.at(name)`:
// std::out_of_range ("map::at") escapes the pipeline; gca-alloc prints "gca-alloc: map::at", exit 1.
// Expected: every copy takes the pinned place, the module allocates and verifies.
TEST_CASE("regression: a shared DRAM name pinned in one function and unpinned in a later one") {
  gca::module m = gca::parse(read_all(fs::path(GCA_SOURCE_DIR) / "fuzz" / "corpus" / "bug_shared_pinned_first.gca"));
  const gca::module original = m;
  CHECK_NOTHROW(gca::validate(m));
  REQUIRE_NOTHROW(allocate_all(m, 2));
  CHECK(gca::verify(original, m, {.linked = true}).ok());
  CHECK(m.functions[1].tensors[m.functions[1].find_tensor("s")].at == std::optional(gca::placement{0, 0}));
}

// FIXED BUG (fuzz/corpus/bug_shared_pinned_second.gca): the mirror case. The first declaration is unpinned, so
// coloring_allocator_dram_shared colors the name as a fresh buffer, avoiding the pinned copy of the later
// function as a blocker (a different address), and sync_shared_allocations then refuses the module:
// input_error "sync_shared_allocations: shared tensor %s has different places in different functions" for
// an input validate accepted. Expected: the pin wins in every function.
TEST_CASE("regression: a shared DRAM name unpinned in one function and pinned in a later one") {
  gca::module m = gca::parse(read_all(fs::path(GCA_SOURCE_DIR) / "fuzz" / "corpus" / "bug_shared_pinned_second.gca"));
  const gca::module original = m;
  CHECK_NOTHROW(gca::validate(m));
  REQUIRE_NOTHROW(allocate_all(m, 2));
  CHECK(gca::verify(original, m, {.linked = true}).ok());
  CHECK(m.functions[0].tensors[m.functions[0].find_tensor("s")].at == std::optional(gca::placement{0, 0}));
}
