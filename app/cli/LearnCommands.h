#pragma once

#include <cstring>

// The commands that need the learned model. `tpugraphs` links no LibTorch (loading it costs
// ~0.5 s and ~150 MB before main), so it hands these to `tpugraphs-learn`, which does.
namespace tpg::cli {

struct LearnCommand {
    const char* name;
    const char* description;
};

inline constexpr LearnCommand kLearnCommands[] = {
    {"train", "Train a layout or tile cost model (GraphSAGE) on a dataset folder"},
    {"eval",
     "Rank every config of a split with a model and report OPA and Kendall (layout) or "
     "top-1/5/10 slowdown (tile), per graph and their mean"},
    {"predict",
     "Rank the configs of every file and write the competition CSV (ID,TopConfigs; best first: "
     "all configs for layout, 5 for tile)"},
    {"whatif",
     "Edit a configuration of a file and predict its runtime and rank among the file's configs, "
     "beside the synthetic TPU's runtime"},
    {"tune",
     "Search for configurations faster than the file's: the model proposes, the synthetic TPU measures the "
     "best of each round; writes the top ones, best first, as a what-if session"},
};

inline const LearnCommand* findLearnCommand(const char* name) {
    for (const auto& c : kLearnCommands)
        if (std::strcmp(c.name, name) == 0) return &c;
    return nullptr;
}

inline const char* learnCommandDescription(const char* name) {
    const LearnCommand* c = findLearnCommand(name);
    return c ? c->description : "";
}

// The executable that runs them, installed beside `tpugraphs` or in libexec.
inline constexpr const char* kLearnExecutable = "tpugraphs-learn";

}  // namespace tpg::cli
