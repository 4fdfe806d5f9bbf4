#!/usr/bin/env bash
# Replaces the scenario-key table in README.md (between the schema markers) with the output
# of `edgetrain schema`, which is generated from the schema declared in src/scenario/keys/.
set -euo pipefail
cd "$(dirname "$0")/.."
table=$(build/edgetrain schema)
python3 - "$table" <<'PY'
import re, sys
table = sys.argv[1]
text = open("README.md").read()
new = re.sub(r"<!-- schema:begin -->.*<!-- schema:end -->",
             lambda m: "<!-- schema:begin -->\n" + table + "\n<!-- schema:end -->", text, flags=re.S)
open("README.md.tmp", "w").write(new)
PY
mv README.md.tmp README.md
