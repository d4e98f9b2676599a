#!/usr/bin/env bash
# Start/stop the project's own Redis (AOF persistence, data under var/redis).
# Skipped when REDIS_URL points at an existing server.
# The data (dump.rdb, the AOF) holds the accounts' signing secrets: var/redis is owner-only (0700) and
# Redis runs under umask 077, so every file it writes is 0600. `redis.sh prepare` does only that part.
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT=${MEDIATRANS_REDIS_PORT:-6390}
DIR=var/redis
PIDFILE=$PWD/$DIR/redis.pid
umask 077

prepare() {
  mkdir -p "$DIR"
  chmod -R go-rwx "$DIR"  # also a data directory made before it was owner-only
}

case "${1:-start}" in
  prepare)
    prepare
    ;;
  start)
    if [ -n "${REDIS_URL:-}" ]; then echo "[redis] using REDIS_URL=$REDIS_URL"; exit 0; fi
    prepare
    if redis-cli -p "$PORT" ping >/dev/null 2>&1; then echo "[redis] already running on $PORT"; exit 0; fi
    redis-server --port "$PORT" --bind 127.0.0.1 --dir "$PWD/$DIR" --appendonly yes \
      --appendfsync everysec --daemonize yes --pidfile "$PIDFILE" --logfile "$PWD/$DIR/redis.log"
    for _ in $(seq 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
    echo "[redis] started on 127.0.0.1:$PORT (AOF in $DIR)"
    ;;
  stop)
    redis-cli -p "$PORT" shutdown >/dev/null 2>&1 || true
    ;;
esac
