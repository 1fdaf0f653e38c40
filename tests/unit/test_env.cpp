// The environment-variable table and its parsers: sizes with suffixes, integers, booleans, malformed
// values, and that every variable is documented.
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "catch.hpp"
#include "env/env.hpp"
#include "stderr_capture.hpp"

namespace env = gpushmem::env;
using gpushmem::Status;
using gpushmem::test::ScopedEnv;
using gpushmem::test::StderrCapture;

namespace {

uint64_t size_of_text(const char *text) {
  uint64_t v = 0xdeadbeef;
  INFO("parse_size(\"" << text << "\")");
  REQUIRE(env::parse_size(text, &v));
  return v;
}

const char *default_of(const char *name) {
  for (const env::Var &v : env::table())
    if (std::strcmp(v.name, name) == 0) return v.default_text;
  FAIL("no variable " << name << " in the table");
  return "";
}

bool size_rejected(const char *text) {
  uint64_t v = 0xdeadbeef;
  return !env::parse_size(text, &v) && v == 0xdeadbeef;  // a failed parse leaves the output alone
}

}  // namespace

TEST_CASE("env: sizes take k/m/g/t suffixes in powers of 1024", "[env]") {
  CHECK(size_of_text("0") == 0);
  CHECK(size_of_text("4096") == 4096);
  CHECK(size_of_text("1k") == 1024);
  CHECK(size_of_text("1K") == 1024);
  CHECK(size_of_text("3kb") == 3 * 1024);
  CHECK(size_of_text("64M") == 64ull << 20);
  CHECK(size_of_text("512MB") == 512ull << 20);
  CHECK(size_of_text("2m") == 2ull << 20);
  CHECK(size_of_text("1G") == 1ull << 30);
  CHECK(size_of_text("3g") == 3ull << 30);
  CHECK(size_of_text("1t") == 1ull << 40);
  CHECK(size_of_text("2TB") == 2ull << 40);
  CHECK(size_of_text("16777215t") == 16777215ull << 40);  // the largest that fits
  CHECK(size_of_text("1099511627776") == 1ull << 40);
  // Fractions are rounded up to whole bytes; after the suffix letter only a unit (B, iB) may follow.
  CHECK(size_of_text("1.5G") == 3ull << 29);
  CHECK(size_of_text("0.5k") == 512);
  CHECK(size_of_text("1.0001k") == 1025);
  CHECK(size_of_text("2GiB") == 2ull << 30);
  CHECK(size_of_text("4kib") == 4096);
}

TEST_CASE("env: malformed sizes are rejected", "[env]") {
  for (const char *bad :
       {"", "k", "G", ".", "-1", "-1k", "12x", "1 k", "1p", "0x10", "+5", "1kk", "1Mfoo", "1M:1M", "2GBx", "1Gi",
        "16777216t",              // 2^64: overflows after the shift
        "99999999999999999999"})  // overflows before it
  {
    INFO("parse_size(\"" << bad << "\") should fail");
    CHECK(size_rejected(bad));
  }
}

TEST_CASE("env: a size with blanks before a minus sign is rejected, not wrapped to 2^64-1", "[env]") {
  // strtoull would skip the blanks and return the negation modulo 2^64.
  CHECK(size_rejected(" -1"));
  CHECK(size_rejected("\t-1G"));
}

TEST_CASE("env: values outside a variable's range are named with the range", "[env]") {
  env::Values v;
  REQUIRE(env::load(&v) == Status::ok);
  CHECK(env::check_ranges(v).empty());
  v.GPUSHMEM_BOOTSTRAP_TIMEOUT = 3000000;
  CHECK(env::check_ranges(v).find("GPUSHMEM_BOOTSTRAP_TIMEOUT") != std::string::npos);
  v.GPUSHMEM_BOOTSTRAP_TIMEOUT = 0;
  CHECK(env::check_ranges(v).find("GPUSHMEM_BOOTSTRAP_TIMEOUT") != std::string::npos);
  v.GPUSHMEM_BOOTSTRAP_TIMEOUT = 120;
  v.GPUSHMEM_HANG_WARN = -1;
  CHECK(env::check_ranges(v).find("GPUSHMEM_HANG_WARN") != std::string::npos);
  v.GPUSHMEM_HANG_WARN = 10;
  v.SHMEM_SYMMETRIC_SIZE = 0;
  CHECK(env::check_ranges(v).find("SHMEM_SYMMETRIC_SIZE") != std::string::npos);
  v.SHMEM_SYMMETRIC_SIZE = 1 << 20;
  v.GPUSHMEM_COLL_PUSH_MAX_BYTES = 10ull << 30;
  CHECK(env::check_ranges(v).find("GPUSHMEM_COLL_PUSH_MAX_BYTES") != std::string::npos);
}

TEST_CASE("env: integers", "[env]") {
  int64_t v = 0;
  REQUIRE(env::parse_int("42", &v));
  CHECK(v == 42);
  REQUIRE(env::parse_int("-7", &v));
  CHECK(v == -7);
  REQUIRE(env::parse_int("0", &v));
  CHECK(v == 0);
  REQUIRE(env::parse_int("-9223372036854775808", &v));
  CHECK(v == INT64_MIN);
  for (const char *bad : {"", "4x", "1k", "1.0", "ten", "9223372036854775808", "-9223372036854775809"}) {
    int64_t w = 99;
    INFO("parse_int(\"" << bad << "\") should fail");
    CHECK_FALSE(env::parse_int(bad, &w));
    CHECK(w == 99);
  }
}

TEST_CASE("env: booleans", "[env]") {
  for (const char *yes : {"1", "y", "Y", "yes", "YES", "true", "True", "on", "ON"}) {
    bool b = false;
    INFO(yes);
    REQUIRE(env::parse_bool(yes, &b));
    CHECK(b);
  }
  for (const char *no : {"0", "n", "no", "No", "false", "FALSE", "off", "Off", ""}) {
    bool b = true;
    INFO(no);
    REQUIRE(env::parse_bool(no, &b));
    CHECK_FALSE(b);
  }
  for (const char *bad : {"2", "maybe", "yess", "-1", "enable"}) {
    bool b = true;
    INFO(bad);
    CHECK_FALSE(env::parse_bool(bad, &b));
    CHECK(b);
  }
}

TEST_CASE("env: every variable is documented and its default parses", "[env]") {
  const auto &rows = env::table();
  REQUIRE(rows.size() >= 5);
  std::set<std::string> names;
  for (const env::Var &v : rows) {
    INFO("variable " << (v.name != nullptr ? v.name : "(null)"));
    REQUIRE(v.name != nullptr);
    REQUIRE(v.help != nullptr);
    REQUIRE(v.category != nullptr);
    REQUIRE(v.default_text != nullptr);
    CHECK(std::strlen(v.help) >= 10);  // a sentence, not a placeholder
    CHECK(std::strlen(v.category) > 0);
    CHECK(names.insert(v.name).second);  // declared once
    const std::string name = v.name;
    CHECK((name.rfind("SHMEM_", 0) == 0 || name.rfind("GPUSHMEM_", 0) == 0));
    CHECK(std::strcmp(env::type_name(v.type), "?") != 0);
    switch (v.type) {
      case env::Type::boolean: {
        bool b;
        CHECK(env::parse_bool(v.default_text, &b));
        break;
      }
      case env::Type::integer: {
        int64_t i;
        CHECK(env::parse_int(v.default_text, &i));
        break;
      }
      case env::Type::size: {
        uint64_t s;
        CHECK(env::parse_size(v.default_text, &s));
        break;
      }
      case env::Type::flag:  // set-or-not: the default text is not parsed
      case env::Type::string:
        break;
    }
  }
  // The spec's names that this library honours.
  CHECK(names.count("SHMEM_SYMMETRIC_SIZE") == 1);
  CHECK(names.count("GPUSHMEM_BOOTSTRAP") == 1);
  CHECK(names.count("GPUSHMEM_HANG_WARN") == 1);
}

TEST_CASE("env: load reads set values and falls back to defaults", "[env]") {
  ScopedEnv size("SHMEM_SYMMETRIC_SIZE", "2M");
  ScopedEnv warn("GPUSHMEM_HANG_WARN", "7");
  ScopedEnv checks("GPUSHMEM_ERROR_CHECKS", "off");
  ScopedEnv boot("GPUSHMEM_BOOTSTRAP", "tcp");
  ScopedEnv debug("GPUSHMEM_DEBUG", nullptr);
  env::Values v;
  REQUIRE(env::load(&v) == Status::ok);
  CHECK(v.SHMEM_SYMMETRIC_SIZE == 2ull << 20);
  CHECK(v.GPUSHMEM_HANG_WARN == 7);
  CHECK_FALSE(v.GPUSHMEM_ERROR_CHECKS);
  CHECK(v.GPUSHMEM_BOOTSTRAP == "tcp");
  CHECK(v.GPUSHMEM_DEBUG == default_of("GPUSHMEM_DEBUG"));

  SECTION("the global copy changes only when reloaded") {
    REQUIRE(env::load_global() == Status::ok);
    CHECK(env::get().SHMEM_SYMMETRIC_SIZE == 2ull << 20);
    setenv("SHMEM_SYMMETRIC_SIZE", "3M", 1);
    CHECK(env::get().SHMEM_SYMMETRIC_SIZE == 2ull << 20);
    REQUIRE(env::load_global() == Status::ok);
    CHECK(env::get().SHMEM_SYMMETRIC_SIZE == 3ull << 20);
  }
  SECTION("value_text shows what is set, else the default") {
    for (const env::Var &var : env::table()) {
      if (std::strcmp(var.name, "GPUSHMEM_HANG_WARN") == 0) CHECK(env::value_text(var) == "7");
      if (std::strcmp(var.name, "GPUSHMEM_DEBUG") == 0) CHECK(env::value_text(var) == var.default_text);
    }
  }
  (void)env::load_global();  // leave the defaults for later tests (ScopedEnv restores the environment)
}

TEST_CASE("env: a malformed value is an error naming the variable, and the default is kept", "[env]") {
  ScopedEnv warn("GPUSHMEM_HANG_WARN", "abc");
  ScopedEnv size("SHMEM_SYMMETRIC_SIZE", "12x");
  env::Values v;
  StderrCapture capture;
  Status s = env::load(&v);
  std::string log = capture.text();
  CHECK(s == Status::invalid_argument);
  int64_t warn_default = 0;
  uint64_t size_default = 0;
  REQUIRE(env::parse_int(default_of("GPUSHMEM_HANG_WARN"), &warn_default));
  REQUIRE(env::parse_size(default_of("SHMEM_SYMMETRIC_SIZE"), &size_default));
  CHECK(v.GPUSHMEM_HANG_WARN == warn_default);
  CHECK(v.SHMEM_SYMMETRIC_SIZE == size_default);
  CHECK(log.find("GPUSHMEM_HANG_WARN='abc'") != std::string::npos);
  CHECK(log.find("SHMEM_SYMMETRIC_SIZE='12x'") != std::string::npos);
}

TEST_CASE("env: flags are true when set to anything, as the specification says", "[env]") {
  {
    ScopedEnv info("SHMEM_INFO", nullptr);
    env::Values v;
    REQUIRE(env::load(&v) == Status::ok);
    CHECK_FALSE(v.SHMEM_INFO);
  }
  for (const char *text : {"1", "0", "", "no"}) {
    ScopedEnv info("SHMEM_INFO", text);
    env::Values v;
    INFO("SHMEM_INFO='" << text << "'");
    REQUIRE(env::load(&v) == Status::ok);
    CHECK(v.SHMEM_INFO);
  }
}

TEST_CASE("env: the deprecated SMA_ spelling of a SHMEM_ variable is honoured, SHMEM_ first", "[env]") {
  ScopedEnv shmem("SHMEM_SYMMETRIC_SIZE", nullptr);
  ScopedEnv sma("SMA_SYMMETRIC_SIZE", "5M");
  env::Values v;
  REQUIRE(env::load(&v) == Status::ok);
  CHECK(v.SHMEM_SYMMETRIC_SIZE == 5ull << 20);
  setenv("SHMEM_SYMMETRIC_SIZE", "6M", 1);
  REQUIRE(env::load(&v) == Status::ok);
  CHECK(v.SHMEM_SYMMETRIC_SIZE == 6ull << 20);
}

TEST_CASE("env: early_bool reads one boolean before load, with the table's default", "[env]") {
  {
    ScopedEnv eager("GPUSHMEM_CUDA_EAGER_LOADING", nullptr);
    CHECK(env::early_bool("GPUSHMEM_CUDA_EAGER_LOADING"));  // the default, 1
  }
  {
    ScopedEnv eager("GPUSHMEM_CUDA_EAGER_LOADING", "off");
    CHECK_FALSE(env::early_bool("GPUSHMEM_CUDA_EAGER_LOADING"));
  }
  {
    ScopedEnv eager("GPUSHMEM_CUDA_EAGER_LOADING", "maybe");  // malformed: the default (load() reports it)
    CHECK(env::early_bool("GPUSHMEM_CUDA_EAGER_LOADING"));
  }
  CHECK_FALSE(env::early_bool("GPUSHMEM_NO_SUCH_VARIABLE"));
  CHECK_FALSE(env::early_bool("SHMEM_SYMMETRIC_SIZE"));  // not a boolean
}
