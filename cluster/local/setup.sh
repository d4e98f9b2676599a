#!/usr/bin/env bash
# Idempotent setup of a fresh Debian machine: system packages, the virtualenv
# with pinned dependencies, and the offline models. Safe to run repeatedly;
# each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/../.."

PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}

APT_PACKAGES=(
  redis-server ffmpeg espeak-ng fonts-noto-cjk codec2-examples alsa-utils nodejs
  apertium apertium-eng-spa apertium-es-pt apertium-fr-es apertium-es-it apertium-es-ro
  apertium-eng-cat apertium-fra-cat apertium-cat-ita apertium-por-cat apertium-es-gl apertium-en-gl
  apertium-af-nl apertium-hbs-eng apertium-hbs-slv apertium-isl-eng apertium-is-sv
  apertium-dan-nor apertium-swe-dan apertium-swe-nor apertium-rus-ukr apertium-id-ms apertium-ind-zlm
  # grammar: Hunspell (library headers for the Python binding, and dictionaries), Grammalecte (French)
  hunspell libhunspell-dev grammalecte-cli python3-grammalecte
  hunspell-en-us hunspell-en-gb hunspell-fr hunspell-de-de hunspell-es hunspell-it hunspell-pt-br hunspell-pt-pt
  hunspell-nl hunspell-ru hunspell-pl hunspell-sv hunspell-da hunspell-no hunspell-ca hunspell-cs hunspell-ro
  hunspell-hu hunspell-bg hunspell-hr hunspell-sk hunspell-sl hunspell-uk hunspell-el hunspell-tr hunspell-lt
  hunspell-lv hunspell-id hunspell-af hunspell-he hunspell-vi hunspell-ar hunspell-hi hunspell-sr hunspell-is
  myspell-et hunspell-sw myspell-tl
  # observability: a Prometheus to scrape the local Ray cluster (tests, cluster/prometheus/prometheus.yml)
  prometheus
)

log() { printf '[setup] %s\n' "$*"; }

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

install_venv() {
  [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
  local stamp="$VENV/.requirements.sha256"
  local want
  want=$(cat requirements.lock requirements-dev.lock requirements-nodeps.lock pyproject.toml client/pyproject.toml | sha256sum | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    log "python dependencies up to date"
    return
  fi
  log "installing python dependencies (pinned in requirements.lock, tools in requirements-dev.lock)"
  "$VENV/bin/pip" install -q --upgrade pip
  # requirements-dev.lock reads requirements.lock (what the service runs) and adds the test and lint tools.
  "$VENV/bin/pip" install -q -r requirements-dev.lock
  # Model and data packages whose declared dependencies would pull CUDA torch or unused packages.
  "$VENV/bin/pip" install -q --no-deps -r requirements-nodeps.lock
  "$VENV/bin/pip" install -q --no-deps -e .
  # The API client package (client/, `mediatrans-client`): its dependencies (httpx, pydantic) are in the lock.
  "$VENV/bin/pip" install -q --no-deps -e ./client
  echo "$want" > "$stamp"
}

assemble_models() {
  log "assembling models"
  "$VENV/bin/python" cluster/local/assemble_models.py --dest models
  # Kokoro's 54 stock voices come from npm (kokoro-js), then the speaker embeddings of each (about a minute once).
  "$VENV/bin/python" cluster/local/kokoro_voices.py --dest models/kokoro
  PYTHONPATH=. "$VENV/bin/python" -m deployments.engines.voice.stock --model-dir models/kokoro
}

install_apt
install_npm
install_venv
assemble_models
log "done"
