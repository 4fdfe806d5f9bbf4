// The user's TorchScript module (model.name torchscript): the built-in mlp exported with the same
// weights computes the same bits; a module with BatchNorm steps deterministically and evaluates
// with re-estimated statistics; its shape is measured from one forward pass; every bad archive is
// one ModelError naming the file. Modules are exported by tools/torchscript/export.py (Debian's
// python3-torch), as users export theirs.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "../export_model.hpp"
#include "learn/dataset.hpp"
#include "learn/model.hpp"
#include "learn/model_shape.hpp"

using namespace edgetrain::learn;
namespace fs = std::filesystem;

namespace {

using test::export_dir;
using test::python;

ModelConfig script_config(const fs::path& file, int64_t side, int64_t classes) {
  ModelConfig c;
  c.name = "torchscript";
  c.file = file;
  c.height = c.width = side;
  c.classes = classes;
  return c;
}

DatasetPair tiny_data(int64_t side, int64_t classes) {
  SyntheticSpec s;
  s.height = s.width = side;
  s.classes = classes;
  s.train_samples = 300;
  s.test_samples = 200;
  return make_synthetic_dataset(s);
}

std::string message_of(const ModelConfig& c) {
  try {
    Model m(c);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("torchscript: the built-in mlp exported with its initial weights computes the same bits") {
  ModelConfig builtin;
  builtin.hidden = {32};
  builtin.height = builtin.width = 8;
  builtin.classes = 4;
  const Model mlp(builtin);
  const std::vector<float> init = mlp.init_params(42);
  const fs::path file = test::export_model("mlp", "mlp.pt", "--input 1x8x8 --classes 4 --hidden 32 --weights " +
                                                                 test::write_raw("mlp.raw", init).string());

  const Model script(script_config(file, 8, 4));
  CHECK(script.num_params() == mlp.num_params());
  CHECK(script.init_params(1) == init);  // the archive's weights, whatever the seed
  CHECK(script.forward_flops_per_sample() == mlp.forward_flops_per_sample());
  REQUIRE(script.layers().size() == mlp.layers().size());
  for (size_t i = 0; i < mlp.layers().size(); ++i) {
    CHECK(script.layers()[i].shape == mlp.layers()[i].shape);
    CHECK(script.layers()[i].offset == mlp.layers()[i].offset);
  }
  // The measured per-operation costs are the built-in model's layer costs: linear, ReLU, linear.
  const ModelShape measured = model_shape(script.config()), counted = model_shape(builtin);
  REQUIRE(measured.compute_layers.size() == counted.compute_layers.size());
  for (size_t i = 0; i < counted.compute_layers.size(); ++i) {
    CHECK(measured.compute_layers[i].kind == counted.compute_layers[i].kind);
    CHECK(measured.compute_layers[i].flops == counted.compute_layers[i].flops);
    CHECK(measured.compute_layers[i].activation_bytes == counted.compute_layers[i].activation_bytes);
    CHECK(measured.compute_layers[i].weight_bytes == counted.compute_layers[i].weight_bytes);
  }

  const DatasetPair data = tiny_data(8, 4);
  Workspace a(mlp), b(script, &data.train);
  const std::vector<int64_t> batch{0, 5, 17, 33, 90, 101, 250, 299};
  std::vector<float> ga(init.size()), gb(init.size());
  CHECK(a.gradient(init, data.train, batch, ga) == b.gradient(init, data.train, batch, gb));
  CHECK(ga == gb);
  const auto ea = a.evaluate(init, data.test, 0), eb = b.evaluate(init, data.test, 0);
  CHECK(ea->accuracy == eb->accuracy);
  CHECK(ea->loss == eb->loss);
}

TEST_CASE("torchscript: a cnn with BatchNorm steps deterministically and evaluates with re-estimated statistics") {
  const fs::path file = test::export_model("cnn-bn", "cnn-bn.pt", "--input 1x8x8 --classes 4");
  const Model m(script_config(file, 8, 4));
  // conv 1->8 3x3: 80, bn 16, conv 8->16 3x3: 1168, bn 32, linear 256->4: 1028
  CHECK(m.num_params() == 80 + 16 + 1168 + 32 + 1028);
  const ModelShape s = model_shape(m.config());
  // conv1 on 8x8 (same padding): (2*9+1)*8*64; conv2 on 4x4: (2*72+1)*16*16; linear: (2*256+1)*4
  CHECK(s.forward_flops_per_sample == doctest::Approx(19.0 * 8 * 64 + 145.0 * 16 * 16 + 513.0 * 4));
  CHECK(s.compute_layers.at(0).kind == LayerKind::conv);
  CHECK(s.compute_layers.at(1).kind == LayerKind::norm);

  const DatasetPair data = tiny_data(8, 4);
  const std::vector<float> init = m.init_params(0);
  Workspace w(m, &data.train), other(m, &data.train), bare(m);
  const std::vector<int64_t> batch{1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float> g1(init.size()), g2(init.size()), g3(init.size());
  const double l1 = w.gradient(init, data.train, batch, g1);
  w.gradient(init, data.train, std::vector<int64_t>{9, 10, 11, 12}, g3);  // another device's step between
  const double l2 = w.gradient(init, data.train, batch, g2);
  CHECK(l1 == l2);
  CHECK(g1 == g2);
  CHECK(std::any_of(g1.begin(), g1.end(), [](float v) { return v != 0; }));
  // Evaluation: the same on any worker, whatever it ran before; statistics from the training set
  // change it (the archive's are BatchNorm's initial zeros and ones).
  const auto e1 = w.evaluate(init, data.test, 0), e2 = other.evaluate(init, data.test, 0);
  CHECK(e1->loss == e2->loss);
  CHECK(e1->loss != bare.evaluate(init, data.test, 0)->loss);
}

TEST_CASE("torchscript: each bad archive is one line naming the file and what is wrong") {
  const fs::path junk = export_dir() / "junk.pt";
  std::ofstream(junk) << "not a zip file";
  CHECK(message_of(script_config(junk, 8, 4)).starts_with("model.file: " + junk.string() +
                                                         " is not a TorchScript archive"));
  CHECK(message_of(script_config(export_dir() / "missing.pt", 8, 4)).ends_with("missing.pt: cannot open file (no such file)"));
  // Read with a bound, and only from a file: /dev/zero is refused at once, not read to the memory limit.
  CHECK(message_of(script_config("/dev/zero", 8, 4)) ==
        "model.file: /dev/zero: the model file must be a regular file, not a pipe, FIFO or device (a model is a "
        "TorchScript archive on disk (torch.jit.save))");

  const fs::path small = test::export_model("mlp", "mlp-6x6.pt", "--input 1x6x6 --classes 4 --hidden 8");
  const std::string shape = message_of(script_config(small, 8, 4));
  CHECK(shape.find("forward does not take the data set's samples (a float batch [2, 1, 8, 8])") != std::string::npos);
  CHECK(shape.find('\n') == std::string::npos);

  CHECK(message_of(script_config(small, 6, 10)).ends_with("forward returns [2, 4] for a batch of 2, not [batch, "
                                                          "classes] = [2, 10]"));

  const fs::path none = export_dir() / "none.pt", dbl = export_dir() / "double.pt", tuple = export_dir() / "tuple.pt";
  python("-c 'import torch; torch.jit.script(torch.nn.Flatten()).save(\"" + none.string() + "\")'");
  python("-c 'import torch; torch.jit.script(torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(64, 4)).double())"
         ".save(\"" + dbl.string() + "\")'");
  const fs::path tuple_py = export_dir() / "tuple.py";  // scripting a class needs its source in a file
  std::ofstream(tuple_py) << "import torch\nclass T(torch.nn.Module):\n  def __init__(s):\n    super().__init__()\n"
                             "    s.l = torch.nn.Linear(64, 4)\n  def forward(s, x):\n    y = s.l(torch.flatten(x, 1))\n"
                             "    return y, y\ntorch.jit.script(T()).save('" + tuple.string() + "')\n";
  python(tuple_py.string());
  CHECK(message_of(script_config(none, 8, 4)).ends_with("none.pt has no trainable parameter"));
  CHECK(message_of(script_config(dbl, 8, 4)).ends_with("double.pt: parameter 1.weight is Double; edgetrain trains "
                                                       "float32 parameters (call .float() before saving)"));
  CHECK(message_of(script_config(tuple, 8, 4)).ends_with("tuple.pt: forward returns a Tuple, not a tensor [batch, "
                                                         "classes] = [2, 4]"));
}

TEST_CASE("torchscript: a module that fails on a training batch, returns integers or holds sparse parameters is one line") {
  // A batch size written into the code: validate's batch of 2 passes, a training batch of 8 does not.
  const fs::path fixed = export_dir() / "fixed.pt", ints = export_dir() / "ints.pt", sparse = export_dir() / "sparse.pt";
  const fs::path py = export_dir() / "bad_modules.py";
  std::ofstream(py) << "import torch\n"
                       "class Fixed(torch.nn.Module):\n  def __init__(s):\n    super().__init__()\n"
                       "    s.l = torch.nn.Linear(64, 4)\n  def forward(s, x):\n    return s.l(x.view(2, 64))\n"
                       "class Ints(torch.nn.Module):\n  def __init__(s):\n    super().__init__()\n"
                       "    s.l = torch.nn.Linear(64, 4)\n  def forward(s, x):\n    return s.l(torch.flatten(x, 1)).long()\n"
                       "class Sparse(torch.nn.Module):\n  def __init__(s):\n    super().__init__()\n"
                       "    s.w = torch.nn.Parameter(torch.eye(64, 4).to_sparse())\n"
                       "  def forward(s, x):\n    return torch.sparse.mm(s.w.t(), torch.flatten(x, 1).t()).t()\n"
                       "torch.jit.script(Fixed()).save('" + fixed.string() + "')\n"
                       "torch.jit.script(Ints()).save('" + ints.string() + "')\n"
                       "torch.jit.script(Sparse()).save('" + sparse.string() + "')\n";
  python(py.string());
  const Model model(script_config(fixed, 8, 4));
  const DatasetPair data = tiny_data(8, 4);
  Workspace w(model, &data.train);
  const std::vector<float> init = model.init_params(1);
  std::vector<float> g(init.size());
  const std::vector<int64_t> batch{0, 1, 2, 3, 4, 5, 6, 7};
  try {
    w.gradient(init, data.train, batch, g);
    FAIL("a batch of 8 trained");
  } catch (const ModelError& e) {
    const std::string m = e.what();
    CHECK(m.starts_with("model.file: " + fixed.string() + ": forward fails on a batch [8, 1, 8, 8]: "));
    CHECK(m.find('\n') == std::string::npos);
  }
  CHECK(message_of(script_config(ints, 8, 4)).ends_with("ints.pt: forward returns Long values; the loss needs float32 "
                                                        "logits [batch, classes]"));
  CHECK(message_of(script_config(sparse, 8, 4)).ends_with("sparse.pt: parameter w is sparse; edgetrain trains dense "
                                                          "float32 parameters (call .to_dense() before saving)"));
}
