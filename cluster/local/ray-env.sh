# Sourced by up.sh/down.sh: Ray's token authentication with a project-local
# token (created once, readable only by its owner), so the dashboard/Serve
# REST API that `serve deploy` uses is not open to other local users.
mkdir -p var/ray
export RAY_USAGE_STATS_ENABLED=0
# Ray starts its workers at niceness 15, below its own daemons; the model replicas' 2-thread OpenMP and ONNX
# Runtime loops then stall whenever a daemon wakes (one game string into 5 languages: 5.3 s at 15, 4.4 s at 0,
# docs/scaling.md). Read when Ray starts.
export RAY_worker_niceness=${RAY_worker_niceness:-0}
export RAY_AUTH_MODE=token
export RAY_AUTH_TOKEN_PATH="$PWD/var/ray/auth_token"
if [ ! -s "$RAY_AUTH_TOKEN_PATH" ]; then
  (umask 077; python3 -c 'import secrets; print(secrets.token_hex(32))' > "$RAY_AUTH_TOKEN_PATH")
fi
# The service key of the internal LLM endpoint (/llm/v1, docs/llm.md): the LLM app requires it and the Translator's
# engine sends it. Both read MEDIATRANS_LLM_KEY from the environment Ray's workers inherit, so it is exported before
# Ray starts; unless set by the caller, it is created once in var/llm.key, readable only by its owner.
if [ -z "${MEDIATRANS_LLM_KEY:-}" ]; then
  LLM_KEY_PATH="$PWD/var/llm.key"
  if [ ! -s "$LLM_KEY_PATH" ]; then
    (umask 077; python3 -c 'import secrets; print(secrets.token_urlsafe(32))' > "$LLM_KEY_PATH")
  fi
  chmod 600 "$LLM_KEY_PATH"
  MEDIATRANS_LLM_KEY=$(tr -d '[:space:]' < "$LLM_KEY_PATH")
  export MEDIATRANS_LLM_KEY
fi
# Serve's ingress: its Python proxy (default), or its HAProxy ingress with MEDIATRANS_SERVE_INGRESS=haproxy
# (2.3-2.6x the requests/s on 2 cores, loadtests/bench_ingress.py; docs/scaling.md). Ray's HAProxy does not
# pass the client's address on, so every anonymous client shares one rate-limit bucket unless a load balancer
# in front sets X-Forwarded-For and anonymous_limits.trust_forwarded_for is on. HAProxy also makes the
# ingress replicas' own HTTP ports listen on all interfaces: firewall them. Read when Ray starts.
# The proxy's guards (serve_app/proxy_guard.py): a request head or body that stalls for 30 s is answered 408 and
# its connection freed; an unusable X-Request-ID is replaced before Serve echoes or logs it. Read when Ray starts.
export RAY_SERVE_HTTP_PROXY_CALLBACK_IMPORT_PATH=serve_app.proxy_guard:middlewares
if [ "${MEDIATRANS_SERVE_INGRESS:-proxy}" = "haproxy" ]; then
  export RAY_SERVE_ENABLE_HA_PROXY=1
  export RAY_SERVE_HAPROXY_NBTHREAD=${RAY_SERVE_HAPROXY_NBTHREAD:-2}
else
  export RAY_SERVE_ENABLE_HA_PROXY=0
fi
