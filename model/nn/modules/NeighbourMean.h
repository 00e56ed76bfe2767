#pragma once

#include <torch/torch.h>

namespace tpg::nn {

// One sparse matrix in compressed rows: row r's entries are [rowStart[r], rowStart[r + 1]).
struct CompressedRows {
    torch::Tensor rowStart;  // [R + 1] long
    torch::Tensor column;    // [E] long, in the edges' order within a row
    torch::Tensor weight;    // [E] float per entry, or undefined (all ones)
    torch::Tensor rowScale;  // [R] float per row, or undefined (all ones)
    int64_t rows() const { return rowStart.size(0) - 1; }
};

// The mean over one direction of a graph's edges as a sparse product, out = M x with
// M[t, s] = invCount[t] per edge (t <- s). Compared with index_select + index_add_ it reads each
// source row in place instead of copying all E messages, in both passes: `gather` computes the
// means, `scatter` (the transpose) carries their gradient back to x. Prepared with a graph whose
// edges are fixed, or per call.
struct NeighbourMean {
    CompressedRows gather;   // R rows (targets) over N columns (sources)
    CompressedRows scatter;  // N rows (sources) over R columns (targets); undefined: no gradient
    int64_t sourceRows = 0;  // N
    bool defined() const { return gather.rowStart.defined(); }
};

// target, source [E] long (target < rows, source < sourceRows); invCount [rows, 1] float.
// Without `withGradient` only the forward is prepared (its cost grows with the targets alone,
// where the transpose's grows with all N sources: scoring an edit touches a few of 45,000).
NeighbourMean makeNeighbourMean(const torch::Tensor& target, const torch::Tensor& source,
                                const torch::Tensor& invCount, int64_t sourceRows,
                                bool withGradient = true);

// x [N, ...] float, N = m.sourceRows -> [R, ...]: row t = invCount[t] x the sum of its
// sources' rows, summed in edge order (equal to the index_add_ path's result). Differentiable in x.
torch::Tensor neighbourMean(const torch::Tensor& x, const NeighbourMean& m);

}  // namespace tpg::nn
