#!/bin/sh
# The image's entrypoint. `borderd serve` runs with the daemon's heap limit, the same node flags as
# `npm start` (docs/performance.md, "What the RSS is made of"); every other command (imports, key
# tools) keeps node's default heap, since an import holds its whole file until it commits.
set -e
# No arguments means serve: CMD is cleared when the entrypoint is given again (`docker run --entrypoint …`).
if [ "$#" -eq 0 ]; then set -- serve; fi
if [ "$1" = "serve" ]; then
  exec node --max-old-space-size=512 /app/bin/borderd.js "$@"
fi
exec node /app/bin/borderd.js "$@"
