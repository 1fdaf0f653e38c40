// The logger: level names, subsystem filters, and the line format every message shares.
#include <string>

#include "catch.hpp"
#include "core/log.hpp"
#include "stderr_capture.hpp"

namespace lg = gpushmem::log;
using gpushmem::test::StderrCapture;
using lg::Level;
using lg::Subsys;

namespace {

// Puts the logger back to its start-up state whatever a test did.
struct LogDefaults {
  ~LogDefaults() {
    lg::configure("WARN", "all");
    lg::set_pe(-1);
  }
};

}  // namespace

TEST_CASE("log: level names parse in any case", "[log]") {
  const std::pair<const char *, Level> names[] = {{"ERROR", Level::error}, {"warn", Level::warn},
                                                  {"Info", Level::info},   {"DEBUG", Level::debug},
                                                  {"trace", Level::trace}, {"TrAcE", Level::trace}};
  for (const auto &[text, level] : names) {
    Level got = Level::error;
    INFO(text);
    REQUIRE(lg::parse_level(text, &got));
    CHECK(got == level);
  }
  for (const char *bad : {"", "WARNING", "verbose", "3", "err"}) {
    Level got = Level::trace;
    INFO(bad);
    CHECK_FALSE(lg::parse_level(bad, &got));
    CHECK(got == Level::trace);
  }
}

TEST_CASE("log: the level and the subsystem list decide what prints", "[log]") {
  LogDefaults restore;
  lg::configure("INFO", "heap,rma");
  CHECK(lg::enabled(Level::info, Subsys::heap));
  CHECK(lg::enabled(Level::info, Subsys::rma));
  CHECK_FALSE(lg::enabled(Level::info, Subsys::sync));
  CHECK_FALSE(lg::enabled(Level::debug, Subsys::heap));
  // Errors and warnings print whatever the subsystem filter says.
  CHECK(lg::enabled(Level::warn, Subsys::sync));
  CHECK(lg::enabled(Level::error, Subsys::bootstrap));

  lg::configure("ERROR", "all");
  CHECK(lg::enabled(Level::error, Subsys::init));
  CHECK_FALSE(lg::enabled(Level::warn, Subsys::init));

  lg::configure("TRACE", "");
  CHECK(lg::enabled(Level::trace, Subsys::env));
  CHECK(lg::enabled(Level::debug, Subsys::node));

  SECTION("unknown subsystem names leave every subsystem on") {
    lg::configure("DEBUG", "nonsense");
    CHECK(lg::enabled(Level::debug, Subsys::init));
    CHECK(lg::enabled(Level::debug, Subsys::sync));
  }
  SECTION("subsystem names are case-insensitive") {
    lg::configure("DEBUG", "BOOTSTRAP");
    CHECK(lg::enabled(Level::debug, Subsys::bootstrap));
    CHECK_FALSE(lg::enabled(Level::debug, Subsys::heap));
  }
}

TEST_CASE("log: an unknown level warns, names the variable, and falls back to WARN", "[log]") {
  LogDefaults restore;
  StderrCapture capture;
  lg::configure("loud", nullptr);
  std::string text = capture.text();
  CHECK(text.find("GPUSHMEM_DEBUG") != std::string::npos);
  CHECK(text.find("loud") != std::string::npos);
  CHECK(lg::enabled(Level::warn, Subsys::all));
  CHECK_FALSE(lg::enabled(Level::info, Subsys::all));
}

TEST_CASE("log: one line per message, prefixed with the PE once it is known", "[log]") {
  LogDefaults restore;
  lg::configure("WARN", "all");
  {
    StderrCapture capture;
    GPUSHMEM_LOG_ERROR(Subsys::init, "shmem_test: value=%d", 42);
    CHECK(capture.text() == "gpushmem ERROR: shmem_test: value=42\n");
  }
  lg::set_pe(3);
  {
    StderrCapture capture;
    GPUSHMEM_LOG_WARN(Subsys::heap, "%s", "low");
    GPUSHMEM_LOG_INFO(Subsys::heap, "%s", "filtered out at WARN");
    CHECK(capture.text() == "gpushmem[PE 3] WARN: low\n");
  }
  SECTION("an over-long message is cut but still ends the line") {
    std::string big(5000, 'x');
    StderrCapture capture;
    GPUSHMEM_LOG_ERROR(Subsys::init, "%s", big.c_str());
    std::string text = capture.text();
    REQUIRE(!text.empty());
    CHECK(text.size() <= 2048);
    CHECK(text.back() == '\n');
    CHECK(text.find('\n') == text.size() - 1);
  }
}
