#!/usr/bin/env bash
# Stop the Serve app and Ray; Redis keeps its data (AOF) for the next start.
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/.venv/bin:$PATH"
source cluster/local/ray-env.sh
serve shutdown -y >/dev/null 2>&1
ray stop >/dev/null 2>&1
cluster/local/redis.sh stop
echo "stopped"
