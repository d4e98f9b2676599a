#!/usr/bin/env bash
# Start/stop the project's own Redis (AOF persistence, data under var/redis).
# Skipped when REDIS_URL points at an existing server.
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT=${MEDIATRANS_REDIS_PORT:-6390}
DIR=var/redis
PIDFILE=$PWD/$DIR/redis.pid

case "${1:-start}" in
  start)
    if [ -n "${REDIS_URL:-}" ]; then echo "[redis] using REDIS_URL=$REDIS_URL"; exit 0; fi
    mkdir -p "$DIR"
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
