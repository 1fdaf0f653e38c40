// Captures what this process writes to file descriptor 2 while the object lives (the library logs with
// write(2), so std::cerr redirection would miss it).
#pragma once

#include <unistd.h>

#include <cstdio>
#include <string>

namespace gpushmem::test {

class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    file_ = std::tmpfile();
    saved_ = dup(STDERR_FILENO);
    if (file_ != nullptr && saved_ >= 0) dup2(fileno(file_), STDERR_FILENO);
  }
  ~StderrCapture() { restore(); }
  StderrCapture(const StderrCapture &) = delete;
  StderrCapture &operator=(const StderrCapture &) = delete;

  // Stops capturing and returns everything written meanwhile (also echoed to the real stderr, so a
  // failing test still shows it).
  std::string text() {
    restore();
    return text_;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, STDERR_FILENO);
    close(saved_);
    saved_ = -1;
    if (file_ == nullptr) return;
    std::rewind(file_);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, file_)) > 0) text_.append(buf, n);
    std::fclose(file_);
    file_ = nullptr;
    std::fwrite(text_.data(), 1, text_.size(), stderr);
  }

  std::FILE *file_ = nullptr;
  int saved_ = -1;
  std::string text_;
};

// Sets (or with value == nullptr unsets) an environment variable for the scope, restoring the old value.
class ScopedEnv {
 public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    const char *old = getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value != nullptr)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_.c_str(), old_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

 private:
  std::string name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace gpushmem::test
