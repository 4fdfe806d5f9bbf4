// Loading the LibTorch module (torch_backend.hpp): once per process, from the folder of the running
// executable (the build folder, where the tests and edgetrain are) or, installed, ../lib/edgetrain.
#include "learn/torch_backend.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>

namespace edgetrain::learn {
namespace {

constexpr const char* kModule = "libedgetrain_torch.so";

const TorchBackend* load() {
  std::error_code ec;
  const auto exe_dir = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
  std::string errors;
  for (const auto& path : {exe_dir / kModule, exe_dir / ".." / "lib" / "edgetrain" / kModule}) {
    if (!std::filesystem::exists(path, ec)) continue;
    // RTLD_GLOBAL: the module's own lookup of openblas_set_num_threads (RTLD_DEFAULT) must see the
    // BLAS that LibTorch brought in.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!handle) {
      errors = dlerror();
      break;
    }
    using Entry = const TorchBackend* (*)();
    if (auto entry = reinterpret_cast<Entry>(dlsym(handle, "edgetrain_torch_backend"))) return entry();
    errors = path.string() + " has no edgetrain_torch_backend";
    break;
  }
  throw std::runtime_error("edgetrain's LibTorch module " + std::string(kModule) + " cannot be loaded from " +
                           exe_dir.string() + " or " + (exe_dir / ".." / "lib" / "edgetrain").string() +
                           (errors.empty() ? " (not found)" : ": " + errors));
}

}  // namespace

const TorchBackend& torch_backend() {
  static std::once_flag once;
  static const TorchBackend* backend = nullptr;
  std::call_once(once, [] { backend = load(); });
  return *backend;
}

}  // namespace edgetrain::learn
