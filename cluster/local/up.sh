#!/usr/bin/env bash
# Start Redis, Ray and the Serve app from configs/local.yaml, wait until ready,
# create a development account and print the base URL and its token.
set -euo pipefail
cd "$(dirname "$0")/../.."
CONFIG=${CONFIG:-configs/local.yaml}
PORT=${MEDIATRANS_REDIS_PORT:-6390}
export PATH="$PWD/.venv/bin:$PATH"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export RAY_USAGE_STATS_ENABLED=0
BASE_URL=http://127.0.0.1:8000

if [ -z "${REDIS_URL:-}" ]; then
  cluster/local/redis.sh start
  export REDIS_URL=redis://127.0.0.1:$PORT/0
fi
source cluster/local/ray-env.sh
# Every tenant's outputs: owner-only from the start (the file store also creates and tightens them so).
FILES_DIR=${MEDIATRANS_FILES_DIR:-var/files}
(umask 077; mkdir -p "$FILES_DIR") && chmod 700 "$FILES_DIR"
if ! ray status >/dev/null 2>&1; then
  echo "[ray] starting head node"
  ray start --head --num-cpus="${RAY_NUM_CPUS:-2}" --disable-usage-stats >var/ray-start.log 2>&1
else
  # Workers keep the environment Ray started with, MEDIATRANS_LLM_KEY included.
  echo "[ray] already running; it keeps the LLM service key it started with (make stop first to change it)"
fi
echo "[serve] deploying $CONFIG"
serve deploy "$CONFIG" >/dev/null

echo -n "[serve] waiting for $BASE_URL/readyz "
for _ in $(seq 300); do
  if curl -fsS "$BASE_URL/readyz" >/dev/null 2>&1; then echo " ready"; break; fi
  echo -n "."; sleep 2
done
curl -fsS "$BASE_URL/readyz" >/dev/null || { echo; echo "[serve] not ready; see 'serve status'"; exit 1; }

mediatrans-admin account ensure dev >/dev/null
TOKEN=$(mediatrans-admin token create dev --ttl-days 30 --quiet)
cat <<MSG

  Media translation API is running.
  Base URL : $BASE_URL   (the API is under $BASE_URL/v1; the client takes either)
  Token    : $TOKEN   (development account "dev", valid 30 days)
  Docs     : $BASE_URL/docs

  Try: curl $BASE_URL/v1/languages
       curl -H "Authorization: Bearer $TOKEN" $BASE_URL/v1/account
  Stop: make stop
MSG
