#!/usr/bin/env bash
# Install coordqa with every extra into ./.venv and run the whole test suite.
# Works on a fresh Debian machine: system packages for the browser and PostgreSQL tests are
# installed with apt-get when missing (root, or sudo without a password, is needed for that).
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=()
command -v chromium >/dev/null 2>&1 || apt_packages+=(chromium)
command -v chromedriver >/dev/null 2>&1 || apt_packages+=(chromium-driver)
{ command -v pg_ctl >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; } || apt_packages+=(postgresql)
# PyICU (the leaderboard's confusable names) builds against the system's ICU.
pkg-config --exists icu-uc 2>/dev/null || apt_packages+=(libicu-dev pkg-config)
if [ ${#apt_packages[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo -n"
  echo "installing system packages: ${apt_packages[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${apt_packages[@]}" >/dev/null
fi

python3 -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip
# torch 2.13.0 first: the CPU build (an unpinned torch would pull several GB of CUDA packages).
python -m pip install -q torch==2.13.0
# hanabi-learning-environment builds from source; current CMake needs this policy floor.
CMAKE_POLICY_VERSION_MINIMUM=3.5 python -m pip install -q -e '.[all,test,docs]'

# pytest's exit code 5 (no tests collected) is a failure too.
status=0
python -m pytest "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: failing" >&2
  exit 1
fi
exit "$status"
