// Benchmark baseline: the plain LibTorch C++ training loop a user would write, with no simulation.
// It reads the Fashion-MNIST IDX files itself (zlib), standardises them as edgetrain does (the
// training set's mean and standard deviation), builds edgetrain's model (the 784-128-10 MLP or the
// small CNN) and runs N SGD steps on shuffled batches: zero_grad, forward + loss, backward, step.
// tools/bench/run.sh times it as a whole process against `edgetrain run` doing the same steps.
// Usage: bench_bare_loop --data DIR [--model mlp|cnn] [--steps N] [--batch B] [--lr X]
//                        [--train-samples N] [--threads N] [--seed N]
#include <torch/torch.h>
#include <zlib.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Options {
  std::string data = "/usr/share/datasets/fashion-mnist";
  std::string model = "mlp";
  int64_t steps = 2000, batch = 32, train_samples = 0, threads = 1, seed = 1;
  double lr = 0.05;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument("missing value after " + a);
    const std::string v = argv[++i];
    if (a == "--data")
      o.data = v;
    else if (a == "--model")
      o.model = v;
    else if (a == "--steps")
      o.steps = std::stoll(v);
    else if (a == "--batch")
      o.batch = std::stoll(v);
    else if (a == "--lr")
      o.lr = std::stod(v);
    else if (a == "--train-samples")
      o.train_samples = std::stoll(v);
    else if (a == "--threads")
      o.threads = std::stoll(v);
    else if (a == "--seed")
      o.seed = std::stoll(v);
    else
      throw std::invalid_argument("unknown option " + a);
  }
  if (o.model != "mlp" && o.model != "cnn") throw std::invalid_argument("--model must be mlp or cnn");
  return o;
}

// One IDX file (gzipped or not: gzread reads both): its dimensions and its uint8 payload.
std::vector<uint8_t> read_idx(const std::string& path, std::vector<int64_t>& dims) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  auto be32 = [&] {
    std::array<unsigned char, 4> b{};
    if (gzread(f, b.data(), 4) != 4) throw std::runtime_error(path + ": short header");
    return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | uint32_t{b[3]};
  };
  const uint32_t magic = be32();
  int64_t total = 1;
  for (uint32_t i = 0; i < (magic & 0xff); ++i) total *= dims.emplace_back(be32());
  std::vector<uint8_t> data(static_cast<size_t>(total));
  if (gzread(f, data.data(), static_cast<unsigned>(total)) != total) throw std::runtime_error(path + ": truncated");
  gzclose(f);
  return data;
}

// Training images as standardised floats [n, 1, 28, 28] and labels [n].
std::pair<torch::Tensor, torch::Tensor> load_train(const Options& o) {
  std::vector<int64_t> image_dims, label_dims;
  const auto pixels = read_idx(o.data + "/train-images-idx3-ubyte.gz", image_dims);
  const auto labels = read_idx(o.data + "/train-labels-idx1-ubyte.gz", label_dims);
  int64_t n = image_dims[0];
  if (o.train_samples > 0 && o.train_samples < n) n = o.train_samples;
  auto x = torch::from_blob(const_cast<uint8_t*>(pixels.data()), {n, 1, image_dims[1], image_dims[2]}, torch::kUInt8)
               .to(torch::kFloat32)
               .div_(255);
  auto y = torch::from_blob(const_cast<uint8_t*>(labels.data()), {n}, torch::kUInt8).to(torch::kInt64);
  x = (x - x.mean()) / x.std(/*unbiased=*/false);
  return {x, y};
}

// edgetrain's models (src/learn/torch/network.cpp): the MLP with one hidden layer of 128, and the CNN
// with two 5x5 convolutions (10 and 20 channels), 2x2 max pooling and a hidden layer of 50.
torch::nn::Sequential build(const std::string& name) {
  if (name == "mlp") {
    return torch::nn::Sequential(torch::nn::Flatten(), torch::nn::Linear(784, 128), torch::nn::ReLU(),
                                 torch::nn::Linear(128, 10));
  }
  return torch::nn::Sequential(torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 10, 5)), torch::nn::MaxPool2d(2),
                               torch::nn::ReLU(), torch::nn::Conv2d(torch::nn::Conv2dOptions(10, 20, 5)),
                               torch::nn::MaxPool2d(2), torch::nn::ReLU(), torch::nn::Flatten(),
                               torch::nn::Linear(320, 50), torch::nn::ReLU(), torch::nn::Linear(50, 10));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    at::set_num_threads(static_cast<int>(o.threads));
    torch::manual_seed(static_cast<uint64_t>(o.seed));
    auto [x, y] = load_train(o);
    const int64_t n = x.size(0);
    auto net = build(o.model);
    torch::optim::SGD sgd(net->parameters(), torch::optim::SGDOptions(o.lr));
    const auto start = std::chrono::steady_clock::now();
    torch::Tensor order = torch::randperm(n, torch::kInt64);
    int64_t at = 0;
    double loss_sum = 0;
    for (int64_t step = 0; step < o.steps; ++step) {
      if (at + o.batch > n) {  // a new epoch: reshuffle
        order = torch::randperm(n, torch::kInt64);
        at = 0;
      }
      const auto idx = order.slice(0, at, at + o.batch);
      at += o.batch;
      sgd.zero_grad();
      auto loss = torch::nn::functional::cross_entropy(net->forward(x.index_select(0, idx)), y.index_select(0, idx));
      loss.backward();
      sgd.step();
      loss_sum += loss.item<double>();
    }
    const double loop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("bare LibTorch loop: %s, %ld steps of batch %ld, loop %.3f s (%.3f ms per step), mean loss %.4f\n",
                o.model.c_str(), static_cast<long>(o.steps), static_cast<long>(o.batch), loop_s,
                1e3 * loop_s / static_cast<double>(o.steps), loss_sum / static_cast<double>(o.steps));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_bare_loop: %s\n", e.what());
    return 2;
  }
}
