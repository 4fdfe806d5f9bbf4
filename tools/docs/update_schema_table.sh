#!/usr/bin/env bash
# Replaces the scenario-key table of docs/reference/scenario-keys.md (between the schema markers) with
# the output of `edgetrain schema`, which is generated from the scenario schema; the test
# scenario/"the scenario key reference holds the table generated from the schema" checks they agree.
set -euo pipefail
cd "$(dirname "$0")/../.."
page=docs/reference/scenario-keys.md
table=$(build/edgetrain schema)
python3 - "$page" "$table" <<'PY'
import re, sys
page, table = sys.argv[1], sys.argv[2]
text = open(page).read()
new = re.sub(r"<!-- schema:begin -->.*<!-- schema:end -->",
             lambda m: "<!-- schema:begin -->\n" + table + "\n<!-- schema:end -->", text, flags=re.S)
open(page + ".tmp", "w").write(new)
PY
mv "$page.tmp" "$page"
