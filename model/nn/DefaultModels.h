#pragma once

#include <string>

#include "CostModel.h"

namespace tpg::nn {

// The default models shipped inside the binary (resources/models/, trained on the embedded
// sample by packaging/train-default-models.sh), so prediction works on first launch.
bool hasDefaultModel(Collection kind);
// Throws FormatError when none was embedded (e.g. a build made before the models existed).
CostModel defaultModel(Collection kind);

}  // namespace tpg::nn
