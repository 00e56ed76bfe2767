#pragma once

#include <cstddef>
#include <cstdint>

// The configuration search's limits and defaults, each with its reason.
namespace tpg::tune::limits {

// Candidate layouts per slot: every permutation up to rank 4 (24) fits; rank 5 and 6 (120 and
// 720) are cut to the layouts a compiler would consider (feature-like dims most minor).
constexpr size_t kMaxValuesPerCoordinate = 64;
// The file's own rows show which layouts and tile sizes it explored: this many are read for them.
constexpr int64_t kSpaceSampleRows = 256;
// Distinct configurations kept as parents for mutation and crossover.
constexpr size_t kPopulation = 48;
// Coordinates of the incumbent swept (every candidate value) per round by the model alone; when
// measuring, a round sweeps measure / 2 coordinates (the model's two best values of each measured).
constexpr size_t kSweepCoordinatesPerRound = 12;
// Random mutants (1-3 coordinates changed) and crossovers of the population, once a whole pass of
// the descent gained nothing.
constexpr size_t kMutantsPerRound = 64;
constexpr size_t kCrossoversPerRound = 16;
// This many rounds in a row that find no configuration not scored before mean the search has
// exhausted what it can reach, and it stops: a tile kernel's ~10^4 configurations are scored within
// seconds, after which a 30-s search had spun through 2.3 million empty rounds to its budget.
constexpr int64_t kRoundsWithoutNewToStop = 1000;
// Fine-tuning: every this many new measurements (a step over 32 rows of the 788-node sample
// costs ~0.1 s: tuning after every round of 8 left too little time to search)...
constexpr size_t kFineTuneEvery = 32;
// ...this many optimiser steps over the measured rows...
constexpr int kFineTuneSteps = 4;
// ...of which at most this many (the fastest half and a spread of the rest) form the batch.
constexpr size_t kFineTuneRows = 32;
// ...once this many distinct runtimes were measured (fewer say too little about the ranking).
constexpr size_t kFineTuneMinRows = 8;
// Measured rows kept (the fastest): what fine-tuning and the final list draw on, bounded in memory
// (a 45,000-node graph's row is ~185 KB).
constexpr size_t kMeasuredRowsKept = 1024;
// Rows of the file seeding the population: its best by the model and by measurement.
constexpr int64_t kFileSeeds = 8;
// The search checks its cancel flag and clock after every this many scored candidates: on a
// 45,000-node graph a candidate costs ~1.5 ms, so cancel acts within ~0.1 s.
constexpr int kCancelCheckCandidates = 64;
// Budgets: a tune without --budget-seconds runs this long; longer ones are refused above the cap
// (a day: a typo's 10^9 seconds should not look like a hang).
constexpr double kDefaultBudgetSeconds = 30;
constexpr double kMaxBudgetSeconds = 86400;
// Configurations measured per round by default (the synthetic TPU "runs" them).
constexpr int kDefaultMeasurePerRound = 8;
constexpr int kMaxMeasurePerRound = 4096;
constexpr int kDefaultTop = 10;
constexpr int kMaxTop = 1000;

}  // namespace tpg::tune::limits
