#include "TileLessonPanel.h"

#include <QPushButton>
#include <algorithm>

#include "CountText.h"
#include "MemoryTiling.h"
#include "TensorText.h"
#include "WhatIfPanel.h"
#include "explain/CostExplanation.h"
#include "graph/Schema.h"

namespace tpg {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}
QString share(double utilisation) {
    return QStringLiteral("%1%").arg(100 * utilisation, 0, 'f', 0);
}
QString boundName(int column) {
    return q(schema::tileConfigFeatureNames()[static_cast<size_t>(column)]);
}

}  // namespace

TileLessonPanel::TileLessonPanel(WhatIfPanel* whatIf, QWidget* parent)
    : GuidedLesson(whatIf, false, kSteps, parent) {
    beginButton()->setToolTip(tr("Start the lesson on the open tile file (or the sample's)"));
    m_message =
        tr("A guided lesson on how a kernel's tile sizes change its runtime, with the synthetic "
           "TPU's figures. Press <b>Begin</b>; then Page Down, as a presenter's remote sends, "
           "steps through it.");
    refresh();
}

void TileLessonPanel::stop() {
    m_scenario.reset();
    m_tpu.reset();
    m_now.reset();
}

void TileLessonPanel::plan() {
    try {
        m_tpu = std::make_shared<const synth::TpuCostModel>(m_graph);
        m_scenario = lesson::findTileLesson(m_graph, *m_tpu);
    } catch (const std::exception& e) {
        unavailable(tr("The lesson cannot run on this file: %1").arg(q(e.what())));
        return;
    }
    if (!m_scenario) {
        unavailable(
            tr("The kernel of %1 cannot show the lesson: its output has no dimension of several "
               "elements to narrow, or no configuration cuts it into several tiles. The sample's "
               "conv_fusion files can: File › Open Sample.")
                .arg(q(m_graph.name())));
        return;
    }
    const lesson::TileLesson& s = *m_scenario;
    m_now = TimedRow{s.startRow, s.startCost};
    m_narrow.reset();
    m_whole.reset();
    m_phase = Phase::Steps;
    m_whatIf->startFromRow(s.startRow, tr("lesson start: %1").arg(q(s.start)));
    enterStep(static_cast<int>(Step::Select));
}

void TileLessonPanel::check() {
    const std::vector<float>& row = m_whatIf->currentRow();
    if (!m_tpu || row.size() != m_scenario->startRow.size()) return;
    if (!m_now || m_now->row != row) m_now = TimedRow{row, m_tpu->explainTile(row.data())};
    if ((step() == Step::Narrow || step() == Step::WatchLanes) && narrowed(*m_now))
        m_narrow = m_now;
    if (step() == Step::OneTile && m_now->cost.tile.numTiles == 1) m_whole = m_now;
    refresh();
}

void TileLessonPanel::stepEntered() {
    const lesson::TileLesson& s = *m_scenario;
    switch (step()) {
        case Step::Select:
            emit panelWanted(tr("Explain"));
            break;
        case Step::Narrow:
            emit panelWanted(tr("What-if"));
            m_whatIf->selectNode(s.laneColumn);
            break;
        case Step::WatchLanes:
            emit panelWanted(tr("Explain"));
            emit nodeActivated(s.output);
            break;
        case Step::OneTile:
            emit panelWanted(tr("What-if"));
            break;
        case Step::Compare:
            emit panelWanted(tr("Explain"));
            break;
    }
}

void TileLessonPanel::showMe() {
    if (m_phase != Phase::Steps) return;
    const lesson::TileLesson& s = *m_scenario;
    bool ok = true;
    switch (step()) {
        case Step::Select:
        case Step::WatchLanes:
        case Step::Compare:
            emit nodeActivated(s.output);
            break;
        case Step::Narrow:
            m_whatIf->selectNode(s.laneColumn);
            ok = m_whatIf->setTileBound(s.laneColumn, lesson::kNarrowLanes);
            break;
        case Step::OneTile:
            for (size_t d = 0; d < s.dims.size() && ok; ++d)
                ok = m_whatIf->setTileBound(s.outputColumns[d], static_cast<float>(s.dims[d]));
            break;
    }
    if (!ok) m_message = m_whatIf->lastError();
    refresh();
}

int64_t TileLessonPanel::laneTile(const std::vector<float>& row) const {
    return lesson::outputTileSize(*m_tpu, row, m_scenario->laneDim);
}

bool TileLessonPanel::narrowed(const TimedRow& c) const {
    const lesson::TileLesson& s = *m_scenario;
    const int64_t lanes = laneTile(c.row);
    return lanes < laneTile(s.startRow) && lanes < kRegisterLanes &&
           c.cost.totalNs > s.startCost.totalNs;
}

bool TileLessonPanel::stepDone() const {
    if (m_phase != Phase::Steps || !m_now) return false;
    switch (step()) {
        case Step::Select:
            return m_selected == m_scenario->output;
        case Step::Narrow:
            return narrowed(*m_now);
        case Step::OneTile:
            return m_now->cost.tile.numTiles == 1;
        case Step::WatchLanes:
        case Step::Compare:
            return true;
    }
    return false;
}

QString TileLessonPanel::tileText(const std::vector<float>& row) const {
    std::vector<int64_t> sizes;
    for (size_t d = 0; d < m_scenario->dims.size(); ++d)
        sizes.push_back(lesson::outputTileSize(*m_tpu, row, static_cast<int>(d)));
    return q(explain::dimsText(sizes));
}

QString TileLessonPanel::titleText() const {
    if (m_phase != Phase::Steps) return tr("Learn: how tile sizes affect runtime");
    static const char* const titles[kSteps] = {
        QT_TR_NOOP("Select the kernel's output"), QT_TR_NOOP("Make its tile narrow"),
        QT_TR_NOOP("Watch the lanes go idle"), QT_TR_NOOP("Make it one tile"),
        QT_TR_NOOP("Compare")};
    return tr(titles[m_step]);
}

QString TileLessonPanel::stepBody() const {
    switch (step()) {
        case Step::Select:
            return selectText();
        case Step::Narrow:
            return narrowText();
        case Step::WatchLanes:
            return watchText();
        case Step::OneTile:
            return oneTileText();
        case Step::Compare:
            return compareText();
    }
    return {};
}

QString TileLessonPanel::selectText() const {
    const lesson::TileLesson& s = *m_scenario;
    TensorShape shape = tensorShape(m_graph.nodeFeatures(s.output), m_graph.nodeFeatureWidth());
    return tr("<p>We start from %1: the kernel computes its output, <b>#%2</b> (%3 <tt>%4</tt>), "
              "one <b>tile</b> at a time, <tt>%5</tt> each: <b>%6</b>, %7 %8, drawn in the "
              "<b>Explain</b> tab.</p><p><b>Click #%2 in the graph</b> (or type %2 in the search "
              "box).</p>")
        .arg(q(s.start))
        .arg(s.output)
        .arg(q(m_graph.opcodeName(s.output)), tensorString(shape).toHtmlEscaped(),
             tileText(s.startRow), countOf(s.startCost.tile.numTiles, tr("tile"), tr("tiles")),
             ns(s.startCost.totalNs), bySynthTpu());
}

QString TileLessonPanel::narrowText() const {
    const lesson::TileLesson& s = *m_scenario;
    return tr("<p>A vector register holds %1 sublanes × %2 lanes. Dimension %3 of the output (%4 "
              "elements) is its most minor: its elements go across the lanes, %5 of them a tile "
              "now.</p><p>In the <b>What-if</b> tab, set <b>%6</b> to <b>%7</b> (it is %8 "
              "now).</p>")
        .arg(kRegisterSublanes)
        .arg(kRegisterLanes)
        .arg(s.laneDim)
        .arg(countText(s.dims[static_cast<size_t>(s.laneDim)]))
        .arg(countText(laneTile(s.startRow)))
        .arg(boundName(s.laneColumn))
        .arg(static_cast<double>(lesson::kNarrowLanes))
        .arg(static_cast<double>(s.startRow[static_cast<size_t>(s.laneColumn)]));
}

QString TileLessonPanel::predictedLine() const {
    if (!m_whatIf->hasReport() || m_whatIf->report().predictedNs <= 0) return {};
    const whatif::WhatIfReport& r = m_whatIf->report();
    return tr("<p>The learned model predicts %1 (rank %2 of %3 configurations)%4.</p>")
        .arg(ns(r.predictedNs), countText(r.rank), countText(r.configs),
             r.boundsOutsideFile.empty()
                 ? QString()
                 : tr(", extrapolating: the file holds no tile this size") + extrapolationAdvice());
}

QString TileLessonPanel::watchText() const {
    const lesson::TileLesson& s = *m_scenario;
    if (!m_now || !narrowed(*m_now))
        return tr("<p>The output's tiles are %1 wide in the configuration being edited: "
                  "<b>Back</b> to make them narrow.</p>")
            .arg(countOf(m_now ? laneTile(m_now->row) : laneTile(s.startRow), tr("lane"),
                         tr("lanes")));
    const synth::TileCost& a = s.startCost.tile;
    const synth::TileCost& b = m_now->cost.tile;
    return tr("<p>Each tile now fills %1 of a register's %2 lanes, and the others compute for "
              "nothing: the useful share of the computed elements went from %3 to <b>%4</b> (the "
              "synthetic TPU charges idle lanes ×%5 at most), and the loop runs %6 times instead "
              "of %7.</p><p>The runtime went from %8 to <b>%9</b> (%10) %15: tile waste %11 → %12, "
              "per-tile overhead %13 → %14. The Explain tab draws the narrow tiles.</p>")
               .arg(countText(laneTile(m_now->row)))
               .arg(kRegisterLanes)
               .arg(share(a.utilisation), share(b.utilisation))
               .arg(kMaxChargedPadding)
               .arg(countText(b.numTiles), countText(a.numTiles), ns(s.startCost.totalNs),
                    ns(m_now->cost.totalNs), percent(s.startCost.totalNs, m_now->cost.totalNs))
               .arg(ns(a.wasteNs), ns(b.wasteNs), ns(a.tileOverheadNs), ns(b.tileOverheadNs),
                    bySynthTpu()) +
           predictedLine();
}

QString TileLessonPanel::oneTileText() const {
    const lesson::TileLesson& s = *m_scenario;
    QStringList bounds;
    for (size_t d = 0; d < s.dims.size(); ++d)
        bounds << tr("%1 = %2").arg(boundName(s.outputColumns[d])).arg(s.dims[d]);
    return tr("<p>Each tile is a step of the kernel's loop, and its operands are fetched while the "
              "previous tile computes. The other extreme: one tile as big as the whole output. In "
              "the <b>What-if</b> tab, set each output bound to its dimension's size (the size "
              "list offers it as \"(whole)\"): %1.</p>")
        .arg(bounds.join(QStringLiteral(", ")));
}

QString TileLessonPanel::configurationLine(const QString& name, const TimedRow& c) const {
    const lesson::TileLesson& s = *m_scenario;
    const synth::TileCost& t = c.cost.tile;
    const QString change = c.row == s.startRow
                               ? QString()
                               : tr(" (%1)").arg(percent(s.startCost.totalNs, c.cost.totalNs));
    return tr("<p><b>%1</b>: <b>%2</b>%3 %10 · %4 of <tt>%5</tt> · %6 of computed elements useful "
              "· working set %7 MiB%8%9</p>")
        .arg(name, ns(c.cost.totalNs), change, countOf(t.numTiles, tr("tile"), tr("tiles")),
             tileText(c.row), share(t.utilisation))
        .arg(t.workingSetBytes / (1024.0 * 1024.0), 0, 'f', 2)
        .arg(t.spills ? tr(", SPILLS") : QString(), predictedText(c.row), bySynthTpu());
}

QString TileLessonPanel::compareText() const {
    const lesson::TileLesson& s = *m_scenario;
    // What the class made at steps 2 and 4 (the lesson's own edits when a step was skipped past).
    const TimedRow start{s.startRow, s.startCost};
    const TimedRow narrow = m_narrow.value_or(TimedRow{s.narrowRow, s.narrowCost});
    const TimedRow whole = m_whole.value_or(TimedRow{s.wholeRow, s.wholeCost});
    QString text = configurationLine(tr("Start (%1)").arg(q(s.start)), start) +
                   configurationLine(tr("Narrow"), narrow) +
                   configurationLine(tr("One tile"), whole);
    const synth::TileCost& a = s.startCost.tile;
    const synth::TileCost& w = whole.cost.tile;
    const QString spill =
        a.spillNs > 0 || w.spillNs > 0
            ? tr(", spill past on-chip memory %1 → %2").arg(ns(a.spillNs), ns(w.spillNs))
            : QString();
    text += tr("<p>From the start to one tile: per-tile overhead %1 → %2, operand traffic not "
               "hidden by double buffering %3 → %4%5; it runs %6.</p>")
                .arg(ns(a.tileOverheadNs), ns(w.tileOverheadNs), ns(a.trafficNs), ns(w.trafficNs),
                     spill, percent(s.startCost.totalNs, whole.cost.totalNs));
    if (m_graph.runtimesKnown()) {
        const auto& runtimes = m_graph.runtimes();
        const int64_t best = std::min_element(runtimes.begin(), runtimes.end()) - runtimes.begin();
        const std::vector<float> bestRow(m_graph.tileConfig(best),
                                         m_graph.tileConfig(best) + m_graph.configFeatureWidth());
        text +=
            tr("<p>The fastest measured configuration, %1, tiles the output in <tt>%2</tt>: %3. ")
                .arg(best)
                .arg(tileText(bestRow), ns(runtimes[static_cast<size_t>(best)]));
    } else {
        text += QStringLiteral("<p>");
    }
    text +=
        tr("The best tile depends on the kernel's sizes: in the What-if tab, select a bound and "
           "press ⇅ to time every size of it; <b>%1</b> runs the lesson once more.</p>")
            .arg(beginText());
    return text;
}

QString TileLessonPanel::statusText() const {
    if (m_phase != Phase::Steps) return {};
    const lesson::TileLesson& s = *m_scenario;
    if (stepDone()) {
        switch (step()) {
            case Step::Select:
                return tr("✓ #%1 is selected. <b>Next</b>.").arg(s.output);
            case Step::Narrow:
                return tr("✓ Tiles %1 wide: %2 → %3. <b>Next</b>: watch the lanes.")
                    .arg(countOf(laneTile(m_now->row), tr("lane"), tr("lanes")))
                    .arg(ns(s.startCost.totalNs), ns(m_now->cost.totalNs));
            case Step::OneTile:
                return tr("✓ One tile: %1 → %2. <b>Next</b>: compare.")
                    .arg(ns(s.startCost.totalNs), ns(m_now->cost.totalNs));
            default:
                return {};
        }
    }
    switch (step()) {
        case Step::Select:
            return tr("Waiting for #%1 to be selected (<b>Show me</b> selects it).").arg(s.output);
        case Step::Narrow:
            return tr("Waiting for %1 to go below %2 (<b>Show me</b> sets it).")
                .arg(boundName(s.laneColumn))
                .arg(countText(std::min<int64_t>(laneTile(s.startRow), kRegisterLanes)));
        case Step::OneTile:
            return tr("Waiting for one tile: %1 now (<b>Show me</b> sets the bounds).")
                .arg(countOf(m_now ? m_now->cost.tile.numTiles : s.startCost.tile.numTiles,
                             tr("tile"), tr("tiles")));
        default:
            return {};
    }
}

}  // namespace tpg
