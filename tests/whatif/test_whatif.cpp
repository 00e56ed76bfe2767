// The what-if core: edits checked against the tensors they lay out, and an edited configuration
// placed among a synthetic file's scored configurations.
#include <QtTest>
#include <cmath>
#include <numeric>
#include <random>

#include "DefaultModels.h"
#include "io/Error.h"
#include "metrics/IsotonicFit.h"
#include "synth/SyntheticDataset.h"
#include "synth/TpuCostModel.h"
#include "whatif/ConfigEdit.h"
#include "whatif/WhatIfPredictor.h"

using namespace tpg;
using namespace tpg::whatif;

namespace {

QString errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const FormatError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

int32_t firstConfigurable(const TpuGraph& g, const char* opcode) {
    for (int32_t n : g.configurableNodes())
        if (g.opcodeName(n) == opcode) return n;
    return -1;
}

}  // namespace

class TestWhatIf : public QObject {
    Q_OBJECT
    std::shared_ptr<const TpuGraph> m_layout, m_tile;

private slots:
    void initTestCase() {
        m_layout = std::make_shared<const TpuGraph>(
            synth::makeLayoutGraph(synth::Recipe::Transformer, 5, 300, 120, synth::LayoutSearch::Random, "t"));
        m_tile = std::make_shared<const TpuGraph>(synth::makeTileGraph(synth::Recipe::ConvKernel, 5, 60, "k"));
    }

    void slotsKnowTheirTensors() {
        const TpuGraph& g = *m_layout;
        const int32_t dot = firstConfigurable(g, "dot");
        const int32_t reshape = firstConfigurable(g, "reshape");
        QVERIFY(dot >= 0 && reshape >= 0);
        const SlotTensor out = slotTensor(g, dot, LayoutSlot::Output);
        QVERIFY(out.usable);
        QCOMPARE(out.tensorNode, dot);
        QVERIFY(out.rank() >= 2);
        const SlotTensor kernel = slotTensor(g, dot, LayoutSlot::Kernel);
        QVERIFY(kernel.usable);
        QCOMPARE(kernel.tensorNode, g.producers(dot)[1]);
        const SlotTensor none = slotTensor(g, reshape, LayoutSlot::Kernel);
        QVERIFY(!none.usable);
        QVERIFY(QString::fromStdString(none.why).contains("only a convolution or dot has a kernel"));
    }

    void editsAreCheckedWithOneClearMessage() {
        const TpuGraph& g = *m_layout;
        const int32_t dot = firstConfigurable(g, "dot");
        const int rank = slotTensor(g, dot, LayoutSlot::Output).rank();
        const std::string node = std::to_string(dot);
        QVERIFY(errorOf([&] { parseLayoutEdit(g, node + ".output=0,0"); }).contains("expected a permutation of 0.."));
        QVERIFY(errorOf([&] { parseLayoutEdit(g, node + ".output=0"); }).contains("rank " + QString::number(rank)));
        QVERIFY(errorOf([&] { parseLayoutEdit(g, "0.output=0,1"); }).contains("is not configurable"));
        QVERIFY(errorOf([&] { parseLayoutEdit(g, "999999.output=0"); }).contains("no node 999999"));
        QVERIFY(errorOf([&] { parseLayoutEdit(g, node + ".weights=0"); }).contains("output, input or kernel"));
        QVERIFY(errorOf([&] { parseLayoutEdit(g, node + ".output=a,b"); }).contains("minor-to-major list"));
        QVERIFY(errorOf([&] { parseLayoutEdit(g, "garbage"); }).contains("expected NODE.SLOT=LAYOUT"));
        QVERIFY(errorOf([&] { parseLayoutEdit(g, node + ".output=default"); }).isEmpty());
        // One slot twice is a slip; other slots of the node, or the same slot of another, are not.
        const LayoutEdit output = parseLayoutEdit(g, node + ".output=default");
        const LayoutEdit input = parseLayoutEdit(g, node + ".input=default");
        QVERIFY(errorOf([&] { checkEachSlotOnce({output, input}); }).isEmpty());
        QVERIFY(errorOf([&] {
                    checkEachSlotOnce({output, input, output});
                }).contains("both set node " + QString::fromStdString(node) + "'s output layout"));
        const std::vector<TileEdit> bounds{parseTileEdit(*m_tile, "output_bounds_0=8"),
                                           parseTileEdit(*m_tile, "output_bounds_1=8")};
        QVERIFY(errorOf([&] { checkEachBoundOnce(bounds); }).isEmpty());
        QVERIFY(errorOf([&] {
                    checkEachBoundOnce({bounds[0], bounds[1], bounds[0]});
                }).contains("both set output_bounds_0"));
    }

    void editsWriteTheRow() {
        const TpuGraph& g = *m_layout;
        const int32_t dot = firstConfigurable(g, "dot");
        const int rank = slotTensor(g, dot, LayoutSlot::Output).rank();
        std::vector<int> perm(static_cast<size_t>(rank));
        for (int i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = rank - 1 - i;
        std::vector<float> row(static_cast<size_t>(g.layoutConfigs()->rowSize()), -1.0f);
        const LayoutEdit e = parseLayoutEdit(g, std::to_string(dot) + ".output=" + layoutText(perm).substr(1));
        applyLayoutEdit(g, row, e);
        QCOMPARE(layoutOf(g, row, dot, LayoutSlot::Output), perm);
        QVERIFY(layoutOf(g, row, dot, LayoutSlot::Input).empty());  // untouched: default
        applyLayoutEdit(g, row, parseLayoutEdit(g, std::to_string(dot) + ".output=default"));
        QVERIFY(std::all_of(row.begin(), row.end(), [](float v) { return v == -1.0f; }));
    }

    // One layout written to several nodes goes to each it fits and leaves the others; the nodes
    // like one are those of its opcode and output shape.
    void oneLayoutForSeveralNodes() {
        const TpuGraph& g = *m_layout;
        const int32_t dot = firstConfigurable(g, "dot");
        const std::vector<int64_t> shape = slotTensor(g, dot, LayoutSlot::Output).dims;
        const std::vector<int32_t> alike = nodesAlike(g, dot);
        QVERIFY(alike.size() > 1);
        QCOMPARE(alike.front(), dot);
        int32_t otherRank = -1;
        size_t same = 0;
        for (int32_t n : g.configurableNodes()) {
            const std::vector<int64_t> dims = slotTensor(g, n, LayoutSlot::Output).dims;
            if (g.opcode(n) == g.opcode(dot) && dims == shape) ++same;
            if (dims.size() != shape.size() && slotTensor(g, n, LayoutSlot::Output).usable)
                otherRank = n;
        }
        QCOMPARE(alike.size(), same);
        QVERIFY(otherRank >= 0);
        QVERIFY(nodesAlike(g, -1).empty());

        std::vector<int> perm(shape.size());
        std::iota(perm.rbegin(), perm.rend(), 0);
        std::vector<float> row(static_cast<size_t>(g.layoutConfigs()->rowSize()), -1.0f);
        std::vector<int32_t> nodes = alike;
        nodes.push_back(otherRank);
        QCOMPARE(applyLayoutToNodes(g, row, nodes, LayoutSlot::Output, perm), alike);
        for (int32_t n : alike) QCOMPARE(layoutOf(g, row, n, LayoutSlot::Output), perm);
        QVERIFY(layoutOf(g, row, otherRank, LayoutSlot::Output).empty());
        const int32_t reshape = firstConfigurable(g, "reshape");  // no kernel slot
        QCOMPARE(applyLayoutToNodes(g, row, {dot, reshape}, LayoutSlot::Kernel, {}),
                 std::vector<int32_t>{dot});
    }

    void tileEditsDeriveSumAndProduct() {
        const TpuGraph& g = *m_tile;
        std::vector<float> row(24, 0.0f);
        applyTileEdit(row, parseTileEdit(g, "output_bounds_0=8"));
        applyTileEdit(row, parseTileEdit(g, "output_bounds_1=128"));
        QCOMPARE(row[14], 136.0f);
        QCOMPARE(row[15], 1024.0f);
        QVERIFY(errorOf([&] { parseTileEdit(g, "output_bounds_sum=3"); }).contains("derived"));
        QVERIFY(errorOf([&] { parseTileEdit(g, "output_bounds_0=-2"); }).contains("whole non-negative"));
        QVERIFY(errorOf([&] { parseTileEdit(*m_layout, "output_bounds_0=2"); }).contains("tile file"));
    }

    // A bound larger than its dimension, or on a dimension its tensor lacks, is refused: the
    // synthetic TPU would clamp it while the model read it as given (found typing
    // output_bounds_0=100000 into `tpugraphs whatif`).
    void tileEditsFitTheirDimensions() {
        const synth::TpuCostModel tpu(*m_tile);
        const std::vector<int64_t> out = tpu.tileTensors().output;
        QVERIFY(!out.empty() && out.size() < 6);
        const std::string d0 = std::to_string(out[0]);
        auto check = [&](const std::string& text) {
            return errorOf([&] { checkTileEditFits(tpu, parseTileEdit(*m_tile, text)); });
        };
        QCOMPARE(check("output_bounds_0=" + d0), QString());
        QCOMPARE(check("output_bounds_0=0"), QString());  // the whole dimension
        std::string shape;
        for (int64_t d : out) shape += (shape.empty() ? "" : ",") + std::to_string(d);
        const std::string over = "output_bounds_0=" + std::to_string(out[0] + 1);
        QCOMPARE(check(over), QString::fromStdString("edit '" + over +
                                                     "': dimension 0 of the kernel's output [" +
                                                     shape + "] is " + d0 + ": expected 1.." + d0 +
                                                     ", or 0 for the whole dimension"));
        const std::string missing = "output_bounds_" + std::to_string(out.size()) + "=8";
        QVERIFY(check(missing).contains("has no dimension " + QString::number(out.size())));
        QCOMPARE(check("output_bounds_" + std::to_string(out.size()) + "=0"), QString());
        const synth::TpuCostModel softmax(
            synth::makeTileGraph(synth::Recipe::SoftmaxKernel, 5, 20, "s"));
        QVERIFY(softmax.tileTensors().kernel.empty());  // a reduction: no convolution or dot
        QVERIFY(errorOf([&] {
                    checkTileEditFits(softmax, TileEdit{0, 8.0f});
                }).contains("has no kernel tensor to tile"));
    }

    // A row copied as edits reads back as the same row (the explorer's Copy Configuration).
    void rowAsEditsReadsBack() {
        const TpuGraph& g = *m_layout;
        const auto& table = *g.layoutConfigs();
        std::vector<float> row(static_cast<size_t>(table.rowSize()));
        table.read(3, 1, row.data());
        std::vector<float> back(row.size(), -1.0f);
        const QStringList edits = QString::fromStdString(rowAsEdits(g, row)).split(QLatin1Char(' '), Qt::SkipEmptyParts);
        QVERIFY(!edits.isEmpty());
        for (const QString& e : edits) applyLayoutEdit(g, back, parseLayoutEdit(g, e.toStdString()));
        QCOMPARE(back, row);
        const TpuGraph& t = *m_tile;
        const std::vector<float> tileRow(t.tileConfig(2), t.tileConfig(2) + t.configFeatureWidth());
        std::vector<float> tileBack(tileRow.size(), 0.0f);
        for (const QString& e : QString::fromStdString(rowAsEdits(t, tileRow)).split(QLatin1Char(' '), Qt::SkipEmptyParts))
            applyTileEdit(tileBack, parseTileEdit(t, e.toStdString()));
        QCOMPARE(tileBack, tileRow);
        // A trimmed copy's row (20 columns) is copied by the schema's positions too, never as a
        // derived sum or product (counting every column of such a file as a bound, as distances
        // do, had leaked into the copy).
        TpuGraphData d = t.data();
        d.configFeatureWidth = 20;
        d.tileConfigFeatures.assign(d.runtimes.size() * 20, 7.0f);
        const TpuGraph trimmed(std::move(d));
        const std::vector<float> trimmedRow(trimmed.tileConfig(0), trimmed.tileConfig(0) + 20);
        const QString copied = QString::fromStdString(rowAsEdits(trimmed, trimmedRow));
        QVERIFY2(copied.contains(QStringLiteral("kernel_bounds_0=7")) &&
                     !copied.contains(QStringLiteral("_sum")) &&
                     !copied.contains(QStringLiteral("_product")),
                 qPrintable(copied));
    }

    void trimmedFilesRefuseSlotEdits() {
        TpuGraphData d = m_layout->data();
        d.nodeFeatureWidth = 70;
        d.nodeFeatures.resize(static_cast<size_t>(d.numNodes * 70));
        const TpuGraph trimmed(std::move(d));
        QVERIFY(QString::fromStdString(layoutEditingUnavailable(trimmed)).contains("trimmed copy"));
        const std::string node = std::to_string(trimmed.configurableNodes().front());
        QVERIFY(errorOf([&] { parseLayoutEdit(trimmed, node + ".output=0,1"); }).contains("trimmed copy"));
    }

    void editedConfigIsPlacedAmongTheFiles() {
        const WhatIfPredictor p(m_layout, nn::defaultModel(Collection::Layout));
        const TpuGraph& g = *m_layout;
        QVERIFY(p.synthIsGroundTruth());  // a synthetic file: its runtimes are the synthetic TPU's
        QCOMPARE(static_cast<int64_t>(p.scores().size()), g.numConfigs());
        // A row of the file is found, with its measured runtime and a rank consistent with the scores.
        const int64_t c = 17;
        const WhatIfReport r = p.evaluate(p.row(c));
        QCOMPARE(p.row(r.matchingRow), p.row(c));
        QCOMPARE(r.matchingRuntimeNs, g.runtimes()[static_cast<size_t>(r.matchingRow)]);
        QCOMPARE(r.nearestDistance, int64_t{0});
        QCOMPARE(r.score, p.scores()[static_cast<size_t>(c)]);  // the table's score (program ties included)
        const auto below = std::count_if(p.scores().begin(), p.scores().end(), [&](double s) { return s < r.score; });
        QCOMPARE(r.rank, 1 + below);
        QCOMPARE(std::llround(r.synthNs), std::llround(g.runtimes()[static_cast<size_t>(c)]));
        // One node edited: not in the file, one node from the start, timed by the synthetic TPU.
        std::vector<float> row = p.row(c);
        const int32_t dot = firstConfigurable(g, "dot");
        const bool wasDefault = layoutOf(g, row, dot, LayoutSlot::Output).empty();
        const int rank = slotTensor(g, dot, LayoutSlot::Output).rank();
        std::vector<int> perm(static_cast<size_t>(rank));
        std::iota(perm.begin(), perm.end(), 0);
        LayoutEdit e{dot, LayoutSlot::Output, wasDefault ? perm : std::vector<int>{}};
        applyLayoutEdit(g, row, e);
        const WhatIfReport edited = p.evaluate(row);
        QVERIFY(edited.nearestDistance <= 1);
        QCOMPARE(edited.synthNs, synth::TpuCostModel(g).layoutRuntime(row.data()));
        QVERIFY(edited.predictedNs > 0);
        QVERIFY(edited.rank >= 1 && edited.rank <= g.numConfigs() + 1);
        // A configuration scored beyond every row of the file says so: its runtime is the fit's
        // end.
        const auto [lo, hi] = std::minmax_element(p.scores().begin(), p.scores().end());
        QCOMPARE(r.beyondFit, 0);
        for (const WhatIfReport& x : {edited, p.evaluate(p.defaultRow())})
            QCOMPARE(x.beyondFit, x.score < *lo ? -1 : x.score > *hi ? 1 : 0);
        // The score-to-runtime map is monotone.
        QVERIFY(p.predictedNs(-10) <= p.predictedNs(0) && p.predictedNs(0) <= p.predictedNs(10));
        // Start points.
        QCOMPARE(p.startRow(StartPoint::parse("best")), p.row(p.bestMeasuredRow()));
        const std::vector<float> compilerDefault = p.defaultRow();
        QVERIFY(std::all_of(compilerDefault.begin(), compilerDefault.end(), [](float v) { return v == -1; }));
        QVERIFY(errorOf([] { StartPoint::parse("fastest"); }).contains("--from"));
        QVERIFY(errorOf([&] { p.row(g.numConfigs()); }).contains("no configuration"));
    }

    // The explorer edits while the file is scored: an unranked predictor answers at once with
    // the score, the synthetic TPU and the nearest rows; ranked() adds the rank and runtime.
    void anUnrankedPredictorEditsAtOnceAndRanksLater() {
        const TpuGraph& g = *m_layout;
        const WhatIfPredictor scored(m_layout, nn::defaultModel(Collection::Layout));
        const WhatIfPredictor early(m_layout, nn::defaultModel(Collection::Layout),
                                    WhatIfPredictor::Unranked{});
        QVERIFY(!early.isRanked() && scored.isRanked());
        QVERIFY(early.scores().empty());
        QCOMPARE(early.bestMeasuredRow(), scored.bestMeasuredRow());
        QVERIFY(early.synthIsGroundTruth());
        std::vector<float> row = early.row(17);
        const int32_t dot = firstConfigurable(g, "dot");
        std::vector<int> perm(static_cast<size_t>(slotTensor(g, dot, LayoutSlot::Output).rank()));
        std::iota(perm.begin(), perm.end(), 0);
        applyLayoutEdit(
            g, row,
            {dot, LayoutSlot::Output,
             layoutOf(g, row, dot, LayoutSlot::Output).empty() ? perm : std::vector<int>{}});
        const WhatIfReport before = early.evaluate(row);
        const WhatIfReport after = scored.evaluate(row);
        QCOMPARE(before.rank, int64_t{0});
        QCOMPARE(before.predictedNs, -1.0);
        QCOMPARE(before.synthNs, after.synthNs);
        QCOMPARE(before.nearestRow, after.nearestRow);
        QCOMPARE(before.nearestDistance, after.nearestDistance);
        QVERIFY(std::abs(before.score - after.score) < 1e-6);  // the network's own score
        QVERIFY(errorOf([&] {
                    early.startRow(StartPoint::parse("predicted-best"));
                }).contains("once the file"));
        const std::shared_ptr<WhatIfPredictor> ranked = early.ranked();
        QVERIFY(ranked->isRanked());
        QCOMPARE(&ranked->synthTpu(), &early.synthTpu());  // one synthetic TPU for the file
        QCOMPARE(ranked->scores(), scored.scores());
        const WhatIfReport now = ranked->evaluate(row);
        QCOMPARE(now.rank, after.rank);
        QCOMPARE(now.predictedNs, after.predictedNs);
        QCOMPARE(ranked->startRow(StartPoint::parse("predicted-best")),
                 scored.startRow(StartPoint::parse("predicted-best")));
        nn::CancelToken cancel;
        cancel.cancel();
        QVERIFY(errorOf([&] { early.ranked({}, &cancel); }).contains("cancelled"));
    }

    // A row whose defaults are spelled out is another spelling of the file row's program: it
    // equals no row, yet the compiler makes the same executable of it, so it takes that row's
    // shared score and rank, and the row's measured runtime is its runtime.
    void anotherSpellingOfARowsProgramTakesItsScore() {
        const WhatIfPredictor p(m_layout, nn::defaultModel(Collection::Layout));
        const TpuGraph& g = *m_layout;
        const int64_t c = 17;
        std::vector<float> row = p.row(c);
        int spelled = 0;
        for (int32_t node : g.configurableNodes()) {
            const SlotTensor t = slotTensor(g, node, LayoutSlot::Output);
            if (!t.usable || !layoutOf(g, row, node, LayoutSlot::Output).empty() || t.rank() < 2) continue;
            std::vector<int> defaultLayout(static_cast<size_t>(t.rank()));
            std::iota(defaultLayout.rbegin(), defaultLayout.rend(), 0);  // rank-1 .. 0: node_feat's here
            applyLayoutEdit(g, row, {node, LayoutSlot::Output, defaultLayout});
            ++spelled;
        }
        QVERIFY(spelled > 0);
        QVERIFY(row != p.row(c));
        uint64_t key = 0;
        p.synthTpu().layoutRuntime(row.data(), &key);
        QCOMPARE(key, p.synthTpu().programKey(c));  // the premise: one program

        const WhatIfReport r = p.evaluate(row);
        QCOMPARE(r.matchingRow, int64_t{-1});
        QVERIFY(r.sameProgramRow >= 0);
        QCOMPARE(p.synthTpu().programKey(r.sameProgramRow), key);
        QCOMPARE(r.score, p.scores()[static_cast<size_t>(c)]);
        QCOMPARE(r.rank, p.evaluate(p.row(c)).rank);
        QCOMPARE(std::llround(r.sameProgramRuntimeNs), std::llround(g.runtimes()[static_cast<size_t>(c)]));
        QCOMPARE(std::llround(r.synthNs), std::llround(g.runtimes()[static_cast<size_t>(c)]));
    }

    void incrementalDistancesEqualAFullScan() {
        // Two predictors: one sees a chain of single-node edits (incremental updates), the other
        // only the final row (a full scan). Their nearest / matching answers must agree.
        const WhatIfPredictor chained(m_layout, nn::defaultModel(Collection::Layout));
        const WhatIfPredictor fresh(m_layout, nn::defaultModel(Collection::Layout));
        const TpuGraph& g = *m_layout;
        std::vector<float> row = chained.row(3);
        chained.evaluate(row);
        std::mt19937_64 rng(5);
        for (int step = 0; step < 12; ++step) {
            const int32_t node = g.configurableNodes()[rng() % g.configurableNodes().size()];
            const SlotTensor t = slotTensor(g, node, LayoutSlot::Output);
            std::vector<int> perm(static_cast<size_t>(t.rank()));
            std::iota(perm.begin(), perm.end(), 0);
            std::shuffle(perm.begin(), perm.end(), rng);
            applyLayoutEdit(g, row, {node, LayoutSlot::Output, step % 4 == 3 ? std::vector<int>{} : perm});
            const WhatIfReport a = chained.evaluate(row);
            if (step % 3 == 2) row = chained.row(static_cast<int64_t>(rng() % 50));  // jump back to a file row
            const WhatIfReport b = fresh.evaluate(step % 3 == 2 ? chained.row(0) : row);
            if (step % 3 == 2) continue;
            QCOMPARE(a.nearestDistance, b.nearestDistance);
            QCOMPARE(a.matchingRow, b.matchingRow);
        }
        const WhatIfReport back = chained.evaluate(chained.row(7));
        QCOMPARE(back.nearestDistance, int64_t{0});
        QCOMPARE(chained.row(back.matchingRow), chained.row(7));
    }

    void tileFilesToo() {
        const WhatIfPredictor p(m_tile, nn::defaultModel(Collection::Tile));
        QVERIFY(p.synthIsGroundTruth());
        std::vector<float> row = p.row(3);
        const WhatIfReport same = p.evaluate(row);
        QVERIFY(same.matchingRow >= 0);
        applyTileEdit(row, parseTileEdit(*m_tile, "output_bounds_0=1"));
        const WhatIfReport r = p.evaluate(row);
        // One bound edited is one bound from the row it was made from, not three (its group's
        // derived sum and product had counted too), on the incremental path and a full scan alike.
        // Row 3 with one bound set to a size no row of the file has there.
        std::vector<float> novel;
        for (const char* edit : {"kernel_bounds_0=3", "output_bounds_0=3", "input_bounds_0=3"}) {
            novel = p.row(3);
            applyTileEdit(novel, parseTileEdit(*m_tile, edit));
            if (p.evaluate(novel).matchingRow < 0) break;
        }
        const WhatIfReport one = p.evaluate(novel);
        QCOMPARE(one.matchingRow, int64_t{-1});
        QCOMPARE(one.nearestDistance, int64_t{1});
        const WhatIfPredictor fresh(m_tile, nn::defaultModel(Collection::Tile));
        QCOMPARE(fresh.evaluate(novel).nearestDistance, int64_t{1});
        QCOMPARE(r.synthNs, synth::TpuCostModel(*m_tile).tileRuntime(row.data()));
        // Unranked, a tile edit and a row of the file get the network's own score and no rank.
        const WhatIfPredictor early(m_tile, nn::defaultModel(Collection::Tile), WhatIfPredictor::Unranked{});
        for (const std::vector<float>& x : {row, p.row(3)}) {
            const WhatIfReport e = early.evaluate(x);
            QCOMPARE(e.rank, int64_t{0});
            QCOMPARE(e.predictedNs, -1.0);
            QCOMPARE(e.synthNs, p.evaluate(x).synthNs);
            QCOMPARE(e.score, early.model().scoreRows(*m_tile, x.data(), 1).at(0));
        }
        QCOMPARE(early.evaluate(p.row(3)).matchingRow, same.matchingRow);
    }

    // A bound set outside the values the file's configurations give it is named in the report:
    // the model never saw this kernel with such tiles, however near a measured row the edit is
    // (a one-lane output tile had read as fast as the best, one bound from a measured row).
    void boundsOutsideTheFilesRangeAreNamed() {
        const WhatIfPredictor p(m_tile, nn::defaultModel(Collection::Tile));
        const synth::TpuCostModel tpu(*m_tile);
        int narrowed = 0;  // bounds whose configurations all tile above one element
        for (int column = 0; column < 24; ++column) {
            const BoundRange range = p.boundRange(column);
            const int64_t dim = tpu.tileBoundDimension(column);
            QCOMPARE(range.known, isTileBoundPosition(column) && dim > 0);
            if (!range.known) continue;
            float low = static_cast<float>(dim), high = 0;
            for (int64_t c = 0; c < m_tile->numConfigs(); ++c) {
                const float v = p.effectiveBound(column, m_tile->tileConfig(c)[column]);
                low = std::min(low, v);
                high = std::max(high, v);
            }
            QCOMPARE(range.low, low);
            QCOMPARE(range.high, high);
            if (low <= 1) continue;
            std::vector<float> row = p.row(0);
            applyTileEdit(row, TileEdit{column, low / 2});
            QCOMPARE(p.evaluate(row).boundsOutsideFile, std::vector<int>{column});
            ++narrowed;
        }
        QVERIFY(narrowed > 0);
        QCOMPARE(p.effectiveBound(8, 0), static_cast<float>(tpu.tileBoundDimension(8)));
        // A 0 set on a dimension the kernel has is written as its size (the model had read 0 as
        // given); on a dimension it lacks, 0 stays.
        QCOMPARE(wholeAsDimension(tpu, TileEdit{8, 0}).value,
                 static_cast<float>(tpu.tileBoundDimension(8)));
        QCOMPARE(wholeAsDimension(tpu, TileEdit{8, 2}).value, 2.0f);
        QCOMPARE(wholeAsDimension(tpu, TileEdit{13, 0}).value, 0.0f);  // output_bounds_5
        QCOMPARE(tpu.tileBoundDimension(13), int64_t{-1});
        QVERIFY(!p.boundRange(99).known);
        for (int64_t c = 0; c < m_tile->numConfigs(); ++c)
            QVERIFY(p.evaluate(p.row(c)).boundsOutsideFile.empty());
        const WhatIfPredictor layout(m_layout, nn::defaultModel(Collection::Layout));
        QVERIFY(!layout.boundRange(0).known);
        QVERIFY(layout.evaluate(layout.row(0)).boundsOutsideFile.empty());
    }

    void incompatibleModelIsOneMessage() {
        QVERIFY(errorOf([&] { WhatIfPredictor(m_tile, nn::defaultModel(Collection::Layout)); })
                    .contains("cannot score"));
    }

    void isotonicFitIsMonotone() {
        const metrics::IsotonicFit fit({1, 2, 3, 4, 5}, {10, 30, 20, 40, 50});
        QCOMPARE(fit(1), 10.0);
        QCOMPARE(fit(2.5), 25.0);  // 30 and 20 pooled into one block at x = 2.5
        QCOMPARE(fit(0), 10.0);    // clamped
        QCOMPARE(fit(9), 50.0);
        QVERIFY(fit(2) <= fit(3) && fit(3) <= fit(4));
        QVERIFY(std::isnan(metrics::IsotonicFit()(1.0)));
        // Beyond the fitted scores the map is clamped, and says so.
        QCOMPARE(fit.side(0.5), -1);
        QCOMPARE(fit.side(1), 0);
        QCOMPARE(fit.side(5), 0);
        QCOMPARE(fit.side(5.5), 1);
        QCOMPARE(metrics::IsotonicFit().side(1), 0);
    }
};

QTEST_GUILESS_MAIN(TestWhatIf)
#include "test_whatif.moc"
