#!/usr/bin/env bash
# Installs the Debian packages gpushmem needs to build and test, and only those that are missing.
#
#   scripts/install-deps.sh           install what is missing (apt-get; as root, or through sudo)
#   scripts/install-deps.sh --check   only report what is missing
#
# A dependency counts as present when its Debian package is installed (dpkg-query) or, failing that,
# when what it provides is found some other way (a command, a header, a pkg-config module): machines
# set up without apt (the GPU machine: cmake and Catch2 installed by hand, no network) then need nothing.
# Exits non-zero only when a required dependency is still missing at the end. GPUSHMEM_NO_APT=1 is the
# same as --check.
set -uo pipefail

check_only=0
case ${1-} in
  --check) check_only=1 ;;
  "") ;;
  -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
  *) echo "install-deps: unknown argument '$1' (use --check or nothing)" >&2; exit 2 ;;
esac
if [[ ${GPUSHMEM_NO_APT:-0} == 1 ]]; then check_only=1; fi

# package | required or optional | probe run when dpkg does not know the package
deps=(
  "cmake|required|cmake_ok"
  "g++|required|have g++ || have c++"
  "make|required|have make"
  "pkg-config|required|have pkg-config || have pkgconf"
  "python3|required|have python3"
  "openmpi-bin|required|have mpirun"
  "libopenmpi-dev|required|have mpicc"
  "catch2|required|catch2_ok"
  "libpmix-dev|optional|pc_ok pmix"
  "libhwloc-dev|optional|pc_ok hwloc"
  "libibverbs-dev|optional|header_ok infiniband/verbs.h"
  "rdma-core|optional|ldconfig -p 2>/dev/null | grep -q libmlx5"
  "libucx-dev|optional|pc_ok ucx"
  "clang-format|optional|have clang-format"
  "python3-matplotlib|optional|python3 -c 'import matplotlib' 2>/dev/null"
)

have() { command -v "$1" >/dev/null 2>&1; }
pc_ok() { have pkg-config && pkg-config --exists "$1"; }
include_dirs() {
  local dirs=(/usr/include /usr/local/include) p
  IFS=: read -r -a extra <<<"${CPATH-}:${CPLUS_INCLUDE_PATH-}"
  for p in "${extra[@]}"; do [[ -n $p ]] && dirs+=("$p"); done
  IFS=: read -r -a prefixes <<<"${CMAKE_PREFIX_PATH-}"
  for p in "${prefixes[@]}"; do [[ -n $p ]] && dirs+=("$p/include"); done
  printf '%s\n' "${dirs[@]}"
}
header_ok() {
  local d
  while read -r d; do [[ -e $d/$1 ]] && return 0; done < <(include_dirs)
  return 1
}
# Catch2 v2 (Debian: catch2/catch.hpp) or v3 (catch2/catch_test_macros.hpp).
catch2_ok() { header_ok catch2/catch.hpp || header_ok catch2/catch_test_macros.hpp; }
# CMake 3.25 or newer (cmake_minimum_required of the project).
cmake_ok() {
  have cmake || return 1
  local v
  v=$(cmake --version | sed -n 's/^cmake version \([0-9]*\.[0-9]*\).*/\1/p')
  [[ -n $v ]] && printf '%s\n3.25\n' "$v" | sort -V -C -r
}

dpkg_installed() { have dpkg-query && [[ $(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null) == ii* ]]; }

# Fills missing_required / missing_optional.
survey() {
  missing_required=()
  missing_optional=()
  local entry pkg need probe
  for entry in "${deps[@]}"; do
    IFS='|' read -r pkg need probe <<<"$entry"
    if [[ $pkg == cmake ]] && dpkg_installed cmake && ! cmake_ok; then
      echo "install-deps: the installed cmake is older than 3.25; gpushmem needs 3.25 or newer" >&2
    elif dpkg_installed "$pkg" || eval "$probe"; then
      continue
    fi
    if [[ $need == required ]]; then missing_required+=("$pkg"); else missing_optional+=("$pkg"); fi
  done
}

# Runs apt-get as root, through sudo when not root (non-interactive sudo unless we have a terminal).
as_root() {
  if [[ $(id -u) == 0 ]]; then
    "$@"
  elif have sudo; then
    if [[ -t 0 ]]; then sudo "$@"; else sudo -n "$@"; fi
  else
    echo "install-deps: not root and no sudo: cannot run $*" >&2
    return 1
  fi
}

survey
all=("${missing_required[@]}" "${missing_optional[@]}")
if ((${#all[@]} == 0)); then
  echo "install-deps: all ${#deps[@]} dependencies present"
  exit 0
fi

if ((check_only)); then
  echo "install-deps: --check given: not installing anything"
elif ! have apt-get || ! have dpkg-query; then
  echo "install-deps: not a Debian-like system (no apt-get/dpkg-query): install the equivalents yourself"
else
  echo "install-deps: installing ${all[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Short network timeouts: a machine without a route to the mirror reports that instead of hanging.
  apt_opts=(-o Acquire::Retries=0 -o Acquire::http::Timeout=15 -o Acquire::https::Timeout=15)
  if as_root apt-get "${apt_opts[@]}" update -q &&
    as_root apt-get "${apt_opts[@]}" install -y -q --no-install-recommends "${all[@]}"; then
    echo "install-deps: apt-get installed ${all[*]}"
  else
    echo "install-deps: apt-get could not install everything (no network or no permission?); checking what is there"
  fi
  survey
fi

if ((${#missing_optional[@]})); then
  echo "install-deps: optional, missing (features are switched off or tools skipped): ${missing_optional[*]}"
fi
if ((${#missing_required[@]})); then
  echo "install-deps: REQUIRED, missing: ${missing_required[*]}" >&2
  echo "install-deps: install these Debian packages (or their equivalents) and run again" >&2
  exit 1
fi
echo "install-deps: every required dependency is present"
