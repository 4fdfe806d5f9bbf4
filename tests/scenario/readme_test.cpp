// The README's scenario table is the schema's own documentation, verbatim: regenerate it
// with tools/update_readme_schema.sh after changing the key files in src/scenario/keys/.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "scenario/schema.hpp"

TEST_CASE("README.md holds the table generated from the schema") {
  std::ifstream in(std::string(EDGETRAIN_SOURCE_DIR) + "/README.md");
  std::stringstream readme;
  readme << in.rdbuf();
  std::string table = edgetrain::scenario::schema_markdown();
  while (!table.empty() && table.back() == '\n') table.pop_back();
  CHECK_MESSAGE(readme.str().find("<!-- schema:begin -->\n" + table + "\n<!-- schema:end -->") != std::string::npos,
                "README.md is out of date: run tools/update_readme_schema.sh");
}
