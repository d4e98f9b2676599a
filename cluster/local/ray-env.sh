# Sourced by up.sh/down.sh: Ray's token authentication with a project-local
# token (created once, readable only by its owner), so the dashboard/Serve
# REST API that `serve deploy` uses is not open to other local users.
mkdir -p var/ray
export RAY_USAGE_STATS_ENABLED=0
export RAY_AUTH_MODE=token
export RAY_AUTH_TOKEN_PATH="$PWD/var/ray/auth_token"
if [ ! -s "$RAY_AUTH_TOKEN_PATH" ]; then
  (umask 077; python3 -c 'import secrets; print(secrets.token_hex(32))' > "$RAY_AUTH_TOKEN_PATH")
fi
