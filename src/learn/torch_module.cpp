// Loading the LibTorch module (torch_module.hpp): once per process, from the folder of the running
// executable (the build folder, where the tests and edgetrain are) or, installed, ../lib/edgetrain.
#include "learn/torch_module.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>

#include "util/stop_flag.hpp"

namespace edgetrain::learn {
namespace {

constexpr const char* kFile = "libedgetrain_torch.so";

const TorchModule* load() {
  std::error_code ec;
  const auto exe_dir = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
  std::string errors;
  for (const auto& path : {exe_dir / kFile, exe_dir / ".." / "lib" / "edgetrain" / kFile}) {
    if (!std::filesystem::exists(path, ec)) continue;
    // RTLD_GLOBAL: the module's own lookup of openblas_set_num_threads (RTLD_DEFAULT) must see the
    // BLAS that LibTorch brought in.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!handle) {
      errors = dlerror();
      break;
    }
    using Entry = const TorchModule* (*)();
    if (auto entry = reinterpret_cast<Entry>(dlsym(handle, "edgetrain_torch_module"))) {
      const TorchModule* module = entry();
      module->watch_stop_flag(&util::stop_flag);
      return module;
    }
    errors = path.string() + " has no edgetrain_torch_module";
    break;
  }
  throw std::runtime_error("edgetrain's LibTorch module " + std::string(kFile) + " cannot be loaded from " +
                           exe_dir.string() + " or " + (exe_dir / ".." / "lib" / "edgetrain").string() +
                           (errors.empty() ? " (not found)" : ": " + errors));
}

}  // namespace

const TorchModule& torch_module() {
  static std::once_flag once;
  static const TorchModule* module = nullptr;
  std::call_once(once, [] { module = load(); });
  return *module;
}

ModulePreload::ModulePreload(bool wanted) {
  if (!wanted) return;
  thread_ = std::thread([] {
    try {
      torch_module();
    } catch (const std::exception&) {
      // torch_module() tries again for its next caller, which reports it.
    }
  });
}

ModulePreload::~ModulePreload() {
  if (thread_.joinable()) thread_.join();
}

}  // namespace edgetrain::learn
