// Shared doctest entry point for every test binary. A run given a test-case filter that matches no
// test case fails: CTest runs each case by name, and a name CTest cannot pass whole (a ';' splits it
// into a list) would otherwise run nothing and pass.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <string_view>

namespace {

unsigned matched = 0;  // test cases that passed the filters, in the run that just ended

struct MatchCounter : doctest::IReporter {
  explicit MatchCounter(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& stats) override { matched = stats.numTestCasesPassingFilters; }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

}  // namespace

REGISTER_LISTENER("match-counter", 1, MatchCounter);

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int status = context.run();
  if (context.shouldExit()) return status;  // --list-test-cases and the like
  bool filtered = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    filtered = filtered || arg.starts_with("--test-case=") || arg.starts_with("-tc=");
  }
  if (status == 0 && filtered && matched == 0) {
    std::fprintf(stderr, "no test case matched the filter: nothing ran (a ';' in a test case's name splits it in CTest)\n");
    return 1;
  }
  return status;
}
