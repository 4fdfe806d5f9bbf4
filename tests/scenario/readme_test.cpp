// The scenario key reference (docs/reference/scenario-keys.md) is the schema's own documentation,
// verbatim: regenerate it with tools/docs/update_schema_table.sh after changing a key.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "scenario/schema.hpp"

TEST_CASE("the scenario key reference holds the table generated from the schema") {
  std::ifstream in(std::string(EDGETRAIN_SOURCE_DIR) + "/docs/reference/scenario-keys.md");
  std::stringstream readme;
  readme << in.rdbuf();
  std::string table = edgetrain::scenario::schema_markdown();
  while (!table.empty() && table.back() == '\n') table.pop_back();
  CHECK_MESSAGE(readme.str().find("<!-- schema:begin -->\n" + table + "\n<!-- schema:end -->") != std::string::npos,
                "docs/reference/scenario-keys.md is out of date: run tools/docs/update_schema_table.sh");
}
