// See emit.hpp.
#include "sweep/emit.hpp"

#include <algorithm>

#include "util/printable.hpp"

namespace edgetrain::sweep {
namespace {

bool control(unsigned char c) { return c < 0x20 || c == 0x7f; }

}  // namespace

void check_script_field(const std::string& field, const std::string& text) {
  const auto bad = std::find_if(text.begin(), text.end(), [](unsigned char c) { return control(c); });
  if (bad == text.end()) return;
  throw EmitError(field + ": \"" + util::printable(text) + "\" holds a control character (" +
                  util::printable(std::string(1, *bad)) +
                  "), which an emitted job script cannot carry (each line is one command): rename it");
}

void check_slurm_log_dir(const std::filesystem::path& log_dir) {
  if (log_dir.string().find('\\') == std::string::npos) return;
  throw EmitError("--out: \"" + util::printable(log_dir.parent_path().string()) +
                  "\" holds a backslash, which a SLURM --output path cannot carry (it turns %A and %a off): "
                  "choose another --out");
}

std::string shell_quote(const std::string& word) {
  check_script_field("a word of an emitted command", word);
  const bool safe = !word.empty() && std::all_of(word.begin(), word.end(), [](unsigned char c) {
    return std::isalnum(c) || std::string_view("_-./=:,+@%").find(static_cast<char>(c)) != std::string_view::npos;
  });
  if (safe) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string sbatch_quote(const std::string& word) {
  check_script_field("an #SBATCH value", word);
  std::string out = "\"";
  for (char c : word) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& a : argv) line += (line.empty() ? "" : " ") + shell_quote(a);
  return line;
}

std::string slurm_script(const std::filesystem::path& jobs_file, size_t tasks, size_t cpus_per_task,
                         const std::string& job_name, const std::filesystem::path& log_dir, size_t ranks) {
  // SLURM expands %A, %a (and any %x) in --output: a % of the folder's own name is written %%.
  check_slurm_log_dir(log_dir);
  std::string logs;
  for (char c : log_dir.string()) logs += c == '%' ? std::string("%%") : std::string(1, c);
  std::string s;
  s += "#!/bin/bash\n";
  s += "# edgetrain sweep as a SLURM job array: task i runs line i of the jobs file, with as many\n";
  s += "# training threads as the task has CPUs";
  s += ranks > 1 ? ", as " + std::to_string(ranks) + " MPI ranks (rank 0 simulates, the others train)" : std::string();
  s += ". Submit with: sbatch THIS_FILE\n";
  s += "#SBATCH --job-name=" + sbatch_quote(job_name) + "\n";
  s += "#SBATCH --array=1-" + std::to_string(tasks) + "\n";
  s += "#SBATCH --cpus-per-task=" + std::to_string(cpus_per_task) + "\n";
  s += "#SBATCH --ntasks=" + std::to_string(std::max<size_t>(1, ranks)) + "\n";
  s += "#SBATCH --output=" + sbatch_quote(logs + "/slurm-%A_%a.log") + "\n";
  s += "set -euo pipefail\n";
  s += "jobs=" + shell_quote(jobs_file.string()) + "\n";
  s += "line=$(sed -n \"${SLURM_ARRAY_TASK_ID}p\" \"$jobs\")\n";
  s += "if [ -z \"$line\" ]; then echo \"no line ${SLURM_ARRAY_TASK_ID} in $jobs\" >&2; exit 2; fi\n";
  s += "# Each line ends in \"--threads N\": the task's CPUs replace N.\n";
  s += std::string("eval \"") + (ranks > 1 ? "srun --mpi=pmix " : "") + "${line% --threads *} --threads ${SLURM_CPUS_PER_TASK:-" +
       std::to_string(cpus_per_task) + "}\"\n";
  return s;
}

}  // namespace edgetrain::sweep
