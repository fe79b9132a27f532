// fuzz/fuzz_alloc.cpp — libFuzzer harness for the whole allocator: parse -> validate -> static_check ->
// the pre-codegen pipeline at -O1, -O2 and -O6 (-O1 and -O2 have the same schedule and run once) -> the
// post-link pipeline -> gca::verify(parsed, m, {.linked = true}) (the two-program form: the allocated
// program must compute what the parsed one did).
//
// Inputs that do not parse, fail validate (input_error) or fail the static check are skipped, exactly as
// gca-alloc refuses them. For the rest, a bug is: a crash or sanitizer report, a hang (libFuzzer
// -timeout), an exception other than allocation_error / timeout_error (and input_error, which the brief
// allows; it is printed so it can be judged), a failing pass that changed the module, a verifier failure,
// or an allocated module that does not print and parse back to itself. The passes are run one by one
// (what run_pipeline does, with skip_unregistered) so that failure safety is checked pass by pass. Each
// pass gets a 2-second watchdog (allocator_options::timeout_seconds). Inputs of odd length run with the
// `lsa` family's linear-scan engine, even ones with the coloring plane, so both engines are fuzzed at no
// extra cost per input.
//
// GCA_FUZZ_STRICT=1 in the environment makes an input_error from a pass a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include <gca/gca.hpp>

namespace {

[[noreturn]] void bug(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_alloc: %s\n%s\n", what, detail.c_str());
  std::abort();
}

/// Runs `schedule` pass by pass; returns false when a pass failed the allowed way (the module must then
/// be exactly as before that pass).
bool run_checked(gca::module& m, const std::vector<std::string>& schedule, const gca::pass_registry& reg,
                 const gca::pass_options& popt) {
  for (const std::string& name : schedule) {
    if (!reg.contains(name)) continue;
    const gca::backend_pass p = reg.create(name, popt);
    const std::string before = gca::print(m);
    try {
      (void)p.run(m);
    } catch (const gca::allocation_error& e) {
      if (gca::print(m) != before) bug("a pass that threw allocation_error changed the module", e.what());
      return false;
    } catch (const gca::timeout_error& e) {
      if (gca::print(m) != before) bug("a pass that threw timeout_error changed the module", e.what());
      return false;
    } catch (const gca::input_error& e) {
      if (gca::print(m) != before) bug("a pass that threw input_error changed the module", e.what());
      if (std::getenv("GCA_FUZZ_STRICT") != nullptr) bug("input_error from a pass after validate accepted the module", e.what());
      return false;
    } catch (const std::exception& e) {
      bug("unexpected exception from a pass", name + ": " + e.what());
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gca::module parsed;
  try {
    parsed = gca::parse(text, "fuzz.gca");
    gca::validate(parsed);
  } catch (const gca::parse_error&) {
    return 0;
  } catch (const gca::input_error&) {
    return 0;
  } catch (const std::exception& e) {
    bug("unexpected exception from parse/validate", e.what());
  }
  for (const gca::function& f : parsed.functions)
    if (!gca::static_check(f).ok()) return 0;

  static const gca::pass_registry reg = gca::default_registry();
  gca::pass_options popt;
  popt.alloc.timeout_seconds = 2;
  if (size % 2 == 1) popt.alloc.engine = gca::engine_kind::linear_scan;
  const std::vector<std::string> post = gca::build_post_link_pipeline();
  std::vector<std::vector<std::string>> seen;
  for (int level : {1, 2, 6}) {
    gca::pipeline_config cfg;
    cfg.optlevel = level;
    if (size % 2 == 1) cfg.allocator = "lsa";
    const std::vector<std::string> schedule = gca::build_pipeline(cfg);
    bool dup = false;
    for (const auto& s : seen) dup = dup || s == schedule;
    if (dup) continue;
    seen.push_back(schedule);
    gca::module m = parsed;
    try {
      if (!run_checked(m, schedule, reg, popt)) continue;
      if (!run_checked(m, post, reg, popt)) continue;
    } catch (const std::exception& e) {
      bug("unexpected exception", e.what());
    }
    const gca::translation_report v = gca::verify(parsed, m, {.linked = true});  // computes what `parsed` did
    if (!v.ok()) bug("verifier failure", "-O" + std::to_string(level) + "\n" + v.message() + gca::print(m));
    const std::string printed = gca::print(m);
    gca::module back;
    try {
      back = gca::parse(printed, "allocated.gca");
    } catch (const gca::parse_error& e) {
      bug("an allocated module does not parse back", std::string(e.what()) + "\n" + printed);
    }
    if (!(back == m)) bug("parse(print(allocated)) != allocated", printed);
  }
  return 0;
}
