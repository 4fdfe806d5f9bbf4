// Your data, end to end: Fashion-MNIST written as an .npz archive runs byte for byte as the IDX
// files do; a LEAF folder's users become the devices' partitions (devices.csv's
// partition_samples), real and timing-only alike; a FedScale folder too large for the machine is
// refused from its listing, before any image is decoded; natural on a data set without users and
// more devices than users are refused in one line.
#include <doctest/doctest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>

#include "../export_model.hpp"
#include "cli_helpers.hpp"

using namespace test;

namespace {

const fs::path kFashion = "/usr/share/datasets/fashion-mnist";

// A scenario on two-devices.xml with `dataset` as its dataset section.
fs::path scenario_with(const fs::path& dir, const std::string& dataset, const std::string& training = "\"real\"",
                       const std::string& model = "{\"name\": \"mlp\", \"hidden\": [16]}") {
  const fs::path file = dir / "scenario.json";
  std::ofstream(file) << "{\"name\": \"your-data\", \"seed\": 3, \"platform\": \""
                      << (kData / "two-devices.xml").string()
                      << "\", \"server\": \"server\", \"devices\": [\"dev-a\", \"dev-b\"], \"dataset\": " << dataset
                      << ", \"model\": " << model << ", \"training\": {\"mode\": \"sync\", "
                         "\"batch_size\": 8, \"lr\": 0.05, \"compute\": "
                      << training
                      << "}, \"eval\": {\"every_s\": 0.5, \"test_samples\": 300}, \"stop\": {\"rounds\": 4}}";
  return file;
}

fs::path run_scenario(const fs::path& scenario, const std::string& tag) {
  const fs::path out = fresh_dir(tag);
  const Result r = run_cli("run " + scenario.string() + " --quiet --out " + out.string(), tag);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return out;
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

}  // namespace

TEST_CASE("your data: Fashion-MNIST as .npz gives byte-identical results to its IDX files") {
  if (!fs::exists(kFashion / "train-images-idx3-ubyte.gz") ||
      std::system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") != 0) {
    MESSAGE("needs Debian's dataset-fashion-mnist and python3-numpy");
    std::exit(77);
  }
  const fs::path dir = fresh_dir("npz-fashion");
  const fs::path npz = dir / "fashion-mnist.npz";
  // The published files as numpy reads them: mnist.npz's layout, x (N, 28, 28) uint8, y uint8.
  const std::string script =
      "import gzip, sys, numpy as np\n"
      "d = sys.argv[1]\n"
      "def read(name, offset, shape):\n"
      "    with gzip.open(d + '/' + name) as f: return np.frombuffer(f.read(), np.uint8, "
      "offset=offset).reshape(shape)\n"
      "np.savez(sys.argv[2], x_train=read('train-images-idx3-ubyte.gz', 16, (-1, 28, 28)),\n"
      "         y_train=read('train-labels-idx1-ubyte.gz', 8, (-1,)),\n"
      "         x_test=read('t10k-images-idx3-ubyte.gz', 16, (-1, 28, 28)), y_test=read('t10k-labels-idx1-ubyte.gz', "
      "8, (-1,)))\n";
  write(dir / "write_npz.py", script);
  REQUIRE(
      std::system(("/usr/bin/python3 " + (dir / "write_npz.py").string() + " " + kFashion.string() + " " + npz.string())
                      .c_str()) == 0);
  const fs::path idx_run =
      run_scenario(scenario_with(fresh_dir("npz-fashion-a"), "{\"name\": \"fashion-mnist\", \"train_samples\": 2000}"),
                   "npz-run-idx");
  const fs::path npz_run =
      run_scenario(scenario_with(fresh_dir("npz-fashion-b"),
                                 "{\"name\": \"npz\", \"file\": \"" + npz.string() + "\", \"train_samples\": 2000}"),
                   "npz-run-npz");
  for (const char* file : {"metrics.csv", "devices.csv", "links.csv", "rounds.csv", "staleness.csv"}) {
    CAPTURE(file);
    CHECK(slurp(idx_run / file) == slurp(npz_run / file));
  }
  auto a = read_json(idx_run / "summary.json"), b = read_json(npz_run / "summary.json");
  CHECK(a["final_test_accuracy"].is_number());
  a.erase("wall_time_s");
  b.erase("wall_time_s");
  CHECK(a == b);
}

TEST_CASE("your data: leaf's natural partition gives each device its user's samples, real and timing-only") {
  // Two users of 30 and 50 samples of 16 values (4x4), labels 0-3; one user in the test set.
  const fs::path dir = fresh_dir("leaf-natural");
  auto user = [](int n, int seed) {
    std::string x, y;
    for (int i = 0; i < n; ++i) {
      x += i ? ", [" : "[";
      for (int k = 0; k < 16; ++k) x += (k ? ", " : "") + std::to_string(((i * 7 + k * 3 + seed) % 10) / 10.0);
      x += "]";
      y += (i ? ", " : "") + std::to_string((i + seed) % 4);
    }
    return "{\"x\": [" + x + "], \"y\": [" + y + "]}";
  };
  write(dir / "data/train/all.json",
        "{\"users\": [\"f1\", \"f2\"], \"num_samples\": [30, 50], \"user_data\": {\"f1\": " + user(30, 1) +
            ", \"f2\": " + user(50, 2) + "}}");
  write(dir / "data/test/all.json",
        "{\"users\": [\"f1\"], \"num_samples\": [20], \"user_data\": {\"f1\": " + user(20, 3) + "}}");
  const std::string dataset =
      "{\"name\": \"leaf\", \"path\": \"" + (dir / "data").string() + "\", \"partition\": {\"kind\": \"natural\"}}";
  for (const char* compute : {"\"real\"", "\"timing-only\""}) {
    CAPTURE(compute);
    const fs::path out = run_scenario(scenario_with(dir, dataset, compute), "leaf-natural-run");
    const auto devices = read_csv(out / "devices.csv");
    REQUIRE(devices.size() == 2);
    CHECK(count(devices[0], "partition_samples") == 30);
    CHECK(count(devices[1], "partition_samples") == 50);
  }
  // Two users per device: 2 users make one device, not two.
  const std::string two_each = "{\"name\": \"leaf\", \"path\": \"" + (dir / "data").string() +
                               "\", \"partition\": {\"kind\": \"natural\", \"users_per_device\": 2}}";
  const Result r =
      run_cli("run " + scenario_with(dir, two_each).string() + " --quiet --out " + fresh_dir("leaf-too-many").string(),
              "leaf-too-many");
  CHECK(r.status == 2);
  CHECK(r.err.find("natural gives 2 user(s) to each of 2 devices, but the training set has 2 users with samples") !=
        std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("your data: your own split, an npz users array or a folder per user, is the natural partition") {
  if (std::system("/usr/bin/python3 -c 'import numpy, matplotlib' 2>/dev/null") != 0) {
    MESSAGE("needs python3-numpy and python3-matplotlib to write the files");
    std::exit(77);
  }
  // 60 samples of 4x4: client "b" holds 40 (first seen), client "a" 20, interleaved; the same split as
  // PNG files, train/<client>/<label>/.
  const fs::path dir = fresh_dir("own-split");
  write(dir / "write.py",
        "import sys, os, numpy as np, matplotlib\n"
        "matplotlib.use('Agg')\n"
        "import matplotlib.image as img\n"
        "d = sys.argv[1]; r = np.random.default_rng(5)\n"
        "x = r.integers(0, 256, (60, 4, 4), dtype=np.uint8); y = np.arange(60) % 4\n"
        "users = np.array(['b' if i % 3 else 'a' for i in range(60)])\n"
        "np.savez(d + '/own.npz', x_train=x, y_train=y, x_test=x[:12], y_test=y[:12], users_train=users)\n"
        "for split, n in (('train', 60), ('test', 12)):\n"
        "    for i in range(n):\n"
        "        f = f'{d}/images/{split}/{users[i]}/{y[i]}/{i:02d}.png'\n"
        "        os.makedirs(os.path.dirname(f), exist_ok=True)\n"
        "        img.imsave(f, x[i], cmap='gray', vmin=0, vmax=255)\n");
  REQUIRE(std::system(("/usr/bin/python3 " + (dir / "write.py").string() + " " + dir.string()).c_str()) == 0);
  const std::string natural = "\"partition\": {\"kind\": \"natural\"}";
  const std::string npz = "{\"name\": \"npz\", \"file\": \"" + (dir / "own.npz").string() + "\", " + natural + "}";
  const std::string images =
      "{\"name\": \"images\", \"path\": \"" + (dir / "images").string() + "\", \"layout\": \"user/class\", " + natural + "}";
  for (const std::string& dataset : {npz, images}) {
    for (const char* compute : {"\"real\"", "\"timing-only\""}) {
      CAPTURE(dataset);
      CAPTURE(compute);
      const fs::path out = run_scenario(scenario_with(fresh_dir("own-split-scenario"), dataset, compute), "own-split-run");
      const auto devices = read_csv(out / "devices.csv");
      REQUIRE(devices.size() == 2);
      // npz: users by first appearance ("a" at sample 0); folders: users in name order (a, b).
      CHECK(count(devices[0], "partition_samples") == 20);
      CHECK(count(devices[1], "partition_samples") == 40);
    }
  }
  // An image folder of classes carries no users: refused by validate, in one line.
  const Result r = run_cli(
      "validate " +
          scenario_with(fresh_dir("own-split-class"), "{\"name\": \"images\", \"path\": \"" + (dir / "images").string() +
                                                       "\", " + natural + "}", "\"timing-only\"")
              .string(),
      "own-split-class");
  CHECK(r.status == 2);
  CHECK(r.err.find("natural on an image folder needs dataset.layout user/class") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("your data: natural on a data set without users is refused in one line") {
  const fs::path dir = fresh_dir("natural-npz");
  const Result r =
      run_cli("validate " + scenario_with(dir, "{\"name\": \"fashion-mnist\", \"partition\": {\"kind\": \"natural\"}}",
                                          "\"timing-only\"")
                                .string(),
              "natural-npz");
  CHECK(r.status == 2);
  CHECK(r.err.find("dataset.partition.kind: natural needs a data set whose samples carry users (dataset.name leaf, "
                   "fedscale, npz or images), not fashion-mnist") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("your data: a FedScale folder beyond the machine's memory is refused from its listing, with the estimate") {
  // 250,000 rows naming one 2000x2000 RGB PNG (3 TB decoded); the PNG holds only its header, so any
  // attempt to decode it would fail: the refusal must come first.
  const fs::path dir = fresh_dir("fedscale-huge");
  std::string ihdr = "IHDR" + be32(2000) + be32(2000) + std::string("\x08\x02\x00\x00\x00", 5);
  const uint32_t crc = static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(ihdr.data()), ihdr.size()));
  write(dir / "data/train/big.png", std::string("\x89PNG\r\n\x1a\n", 8) + be32(13) + ihdr + be32(crc));
  write(dir / "data/test/big.png", std::string("\x89PNG\r\n\x1a\n", 8) + be32(13) + ihdr + be32(crc));
  std::string rows = "client_id,sample_path,label_name,label_id\n";
  for (int i = 0; i < 250000; ++i)
    rows += std::to_string(i % 100) + ",big.png,c" + std::to_string(i % 3) + "," + std::to_string(i % 3) + "\n";
  write(dir / "data/client_data_mapping/train.csv", rows);
  write(dir / "data/client_data_mapping/test.csv", "client_id,sample_path,label_name,label_id\n0,big.png,c0,0\n");
  const Result r = run_cli(
      "run " + scenario_with(dir, "{\"name\": \"fedscale\", \"path\": \"" + (dir / "data").string() + "\"}").string() +
          " --quiet --out " + fresh_dir("fedscale-huge-out").string(),
      "fedscale-huge");
  CHECK(r.status == 2);
  CHECK(r.err.find("edgetrain: scenario needs about ") == 0);
  CHECK(r.err.find("TB") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("your data: LEAF's Shakespeare text trains LEAF's char LSTM, each device a speaker's lines") {
  // Two speakers' 10-character windows of a line and the character after each; LEAF's model, small.
  const fs::path dir = fresh_dir("leaf-text");
  auto speaker = [](const std::string& line, int n) {
    std::string x, y;
    for (int i = 0; i < n; ++i) {
      const std::string window = line.substr(static_cast<size_t>(i) % (line.size() - 10), 10);
      x += std::string(i ? ", " : "") + "\"" + window + "\"";
      y += std::string(i ? ", " : "") + "\"" + line[static_cast<size_t>(i) % (line.size() - 10) + 10] + "\"";
    }
    return "{\"x\": [" + x + "], \"y\": [" + y + "]}";
  };
  const std::string romeo = "But, soft! what light through yonder window breaks? It is the east.";
  const std::string juliet = "O Romeo, Romeo! wherefore art thou Romeo? Deny thy father.";
  write(dir / "data/train/all.json", "{\"users\": [\"ROMEO\", \"JULIET\"], \"num_samples\": [40, 24], "
                                     "\"user_data\": {\"ROMEO\": " + speaker(romeo, 40) + ", \"JULIET\": " +
                                         speaker(juliet, 24) + "}}");
  write(dir / "data/test/all.json",
        "{\"users\": [\"ROMEO\"], \"num_samples\": [30], \"user_data\": {\"ROMEO\": " + speaker(romeo, 30) + "}}");
  const fs::path lstm = export_model("char-lstm", "lstm.pt", "--input 1x1x10 --classes 80 --hidden 16");
  const std::string dataset =
      "{\"name\": \"leaf\", \"path\": \"" + (dir / "data").string() + "\", \"partition\": {\"kind\": \"natural\"}}";
  const std::string model = "{\"name\": \"torchscript\", \"file\": \"" + lstm.string() + "\"}";
  const fs::path out = run_scenario(scenario_with(dir, dataset, "\"real\"", model), "leaf-text-run");
  const auto devices = read_csv(out / "devices.csv");
  REQUIRE(devices.size() == 2);
  CHECK(count(devices[0], "partition_samples") == 40);
  CHECK(count(devices[1], "partition_samples") == 24);
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["rounds"].get<int>() == 4);
  CHECK(summary["final_test_accuracy"].is_number());
  // The LSTM's multiply-adds counted: 2 layers x 4 gates x 16 units x (8 + 16, then 16 + 16) per
  // character, 10 characters, forward and backward (x3), plus the embedding and the output layer.
  CHECK(summary["model_step_flops_per_sample"].get<double>() > 3 * 10 * 2 * 4 * 16 * (24 + 32));
}
