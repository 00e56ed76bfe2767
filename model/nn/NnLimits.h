#pragma once

#include <cstddef>
#include <cstdint>

// Every limit and default of the learned cost model, in one place, each with its reason.
namespace tpg::nn::limits {

// uint8 opcodes: every id a file can hold gets its own embedding row (0 = unknown).
constexpr int kOpcodeVocabulary = 256;
// Layout config values are small integers -1..5: one-hot over these 7 values per column.
constexpr int kLayoutValueMin = -1;
constexpr int kLayoutValueCount = 7;
// Standard deviations below this are treated as constant columns (no division blow-up).
constexpr double kMinStd = 1e-6;
// Normalisation statistics come from this many training graphs: enough for stable means,
// cheap enough to read before the first step.
constexpr int kStatsGraphs = 48;
// Configs scored per forward pass when streaming a whole file: bounds the
// [configs, nodes, hidden] activation tensor.
constexpr int64_t kScoreBatchConfigs = 256;
// ...and the activation budget (floats) per scoring batch for big graphs.
constexpr int64_t kScoreBatchFloats = int64_t{48} << 20;
// How often a file's scoring, between batches, checks whether a waiting edit has had the model.
constexpr int kInteractiveYieldPollMs = 1;
// A file's program index (a synthetic TPU pass per configuration, where configurations of one
// program share a score) takes about this share of its scoring time: its share of a progress bar
// (measured on 44,941 nodes x 20,000 configurations: 5% on an Intel Xeon, 7% on an AMD EPYC).
constexpr double kProgramIndexShare = 0.06;
// Layout config rows read per call when hashing a table for duplicates.
constexpr int64_t kDedupReadRows = 512;
// A prepared graph larger than this many nodes is still accepted, but warned about (slow).
constexpr int64_t kLargeGraphNodes = 200000;
// Default LRU budget for prepared training graphs (bytes): well under the machine's 24 GB.
constexpr size_t kDefaultCacheBytes = size_t{3} << 30;
// Validation scores at most this many configs per graph (deterministic subset) so an epoch's
// validation stays a small fraction of training time; `eval` scores all of them.
constexpr int64_t kDefaultValidConfigsPerGraph = 2000;
// A network's width and depth, as the Training tab offers them: above the widest and deepest
// measured (96 wide, 3 deep); a layer 100,000 wide asked for 40 GB at its first step.
constexpr int kMaxHidden = 512;
constexpr int kMaxLayers = 8;
// Prepared graphs need a working cache: below this the LRU would reload a graph every step.
constexpr double kMinCacheMiB = 64;
// ...and a byte count that fits size_t: a petabyte is no machine's memory.
constexpr double kMaxCacheMiB = 1e9;
// An epoch samples at most this many configurations of one graph: every config of a typical
// graph once, while a 100k-config NLP graph does not make one epoch hours long.
constexpr int64_t kEpochConfigsPerGraph = 16384;
// scoreEdited: a row differing from the previous one in at most this many configurable nodes is
// re-scored incrementally (their receptive field only); more, and the full pass is as cheap.
constexpr int64_t kIncrementalNodes = 8;
// ...and after this many incremental steps a full pass refreshes the state (bounds any drift).
constexpr int kIncrementalEditsBeforeFullPass = 256;
// Metadata block of a model file is JSON; refuse absurd lengths from a corrupt header.
constexpr uint64_t kMaxMetadataBytes = uint64_t{16} << 20;
// A model's or training state's weights archive unpacks to at most this: far above any network
// here (a 64 x 3 tile model's is ~400 KB), low enough that a crafted archive cannot fill memory.
constexpr uint64_t kMaxWeightsArchiveBytes = uint64_t{1} << 30;
// A weights archive's tensors (TensorArchive.h): bounds read from the file before anything is
// allocated. The networks here have ~60 tensors of at most rank 2 and ~100k values in all.
constexpr uint64_t kMaxTensors = 4096;
constexpr uint32_t kMaxTensorNameBytes = 1024;
constexpr uint32_t kMaxTensorRank = 8;
constexpr int64_t kMaxTensorValues = int64_t{1} << 28;
// A LibTorch archive's data.pkl (older model files and states, TorchArchiveReader.h): a 48 x 2
// layout model's training state has one of 8 KB, a model file 3 KB; the bound keeps the pickle
// reader's values (~80 bytes each, one per byte at most) under ~100 MB.
constexpr uint64_t kMaxTorchPickleBytes = uint64_t{1} << 20;
// ...and its modules nest about 6 deep (state, model, layers, a layer, its parts): far deeper is
// no archive of ours, and would recurse without bound.
constexpr int kMaxTorchModuleDepth = 32;
// Training state is saved mid-epoch this often (seconds): a killed run redoes at most this much,
// while a checkpoint (ms for our model sizes) stays a negligible share of the time.
constexpr double kDefaultCheckpointSeconds = 30;
// Auto patience under a constant learning rate: this many epochs without a validation gain are a
// plateau the rate will not leave.
constexpr int kConstantRatePatience = 6;
// A validation figure must rise by more than this to count as a gain (float noise is no gain).
constexpr double kValidationGain = 1e-6;
// "This file only" training holds out this share of the file's configurations to validate on.
constexpr double kSingleFileHeldOutFraction = 0.2;
// A layout training step whose per-config work (sampled configs x nodes with per-config state)
// exceeds this runs in chunks of configs with a cancel check between them: ~0.25 s of work per
// chunk on one core (about 7 us per node and config forward, as much again backward), so Stop
// acts within a second even on 45k-node graphs. The gradient is the same as in one pass.
constexpr int64_t kTrainChunkNodeConfigs = 32768;
// The per-config pass computes a batch's distinct rows once (DistinctConfigRows.h) only while
// every layer keeps at most this share of its dense rows: past it, gathering the rows back and
// finding them costs about what the skipped rows would (random searches share few rows).
constexpr double kDistinctRowShare = 0.5;
// Size-matched steps (EpochPlan.h) sort graphs by cost within windows of this many global
// steps: wide enough that partners cost nearly the same (2 workers on 24 graphs: 16 steps left
// a worker waiting 4 ms of a 96 ms step, 64 steps 1 ms), narrow enough that the epoch's order
// stays random and big graphs do not bunch up at one end.
constexpr int kMatchWindowSteps = 64;
// A sparse mean (NeighbourMean.h) hands each thread rows of at least this many output floats:
// smaller chunks cost more in scheduling than they save.
constexpr int64_t kMeanFloatsPerThread = int64_t{32} * 1024;
// Tile competition metric: top-5 slowdown.
constexpr int kTileTopK = 5;

// Allocations up to this size come from the heap, not a fresh mmap (glibc's largest allowed):
// LibTorch frees and re-allocates activation buffers of the same sizes every forward pass.
constexpr size_t kHeapAllocationBytes = size_t{32} << 20;
// Freed heap memory up to this much is kept for the next pass instead of returned to the OS.
constexpr size_t kKeptFreeHeapBytes = size_t{2} << 30;

}  // namespace tpg::nn::limits
