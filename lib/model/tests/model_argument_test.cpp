// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The one reading of --model: catalog names (scaled ones too) and JSON spec files.
#include <canzona/core/error.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/model/json.hpp>
#include <canzona/model/model_argument.hpp>

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>

namespace canzona::model {
namespace {

TEST(ModelArgumentTest, CatalogNamesScaledNamesAndFiles) {
  EXPECT_EQ(resolve_model("qwen3-8b").name, model_from_name("qwen3-8b").name);
  // The scaled shapes the suites run: the validation tool used to refuse them.
  const ModelSpec scaled = resolve_model("qwen3-0.6b~d16");
  EXPECT_EQ(scaled.name, model_from_name("qwen3-0.6b~d16").name);
  EXPECT_LT(scaled.hidden_size, model_from_name("qwen3-0.6b").hidden_size);

  const std::filesystem::path file =
      std::filesystem::temp_directory_path() /
      ("model_argument_test_" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(file);
    const nlohmann::json spec = model_from_name("qwen3-0.6b");
    out << spec.dump();
  }
  EXPECT_EQ(resolve_model(file.string()).hidden_size, model_from_name("qwen3-0.6b").hidden_size);
  std::filesystem::remove(file);

  EXPECT_THROW(resolve_model("qwen3-72b"), ConfigError);
  EXPECT_THROW(resolve_model("missing/spec.json"), ConfigError);
}

}  // namespace
}  // namespace canzona::model
