#include "LessonPanel.h"

#include <QPushButton>
#include <algorithm>

#include "CountText.h"
#include "JobRunner.h"
#include "TensorText.h"
#include "WhatIfPanel.h"
#include "explain/CostExplanation.h"

Q_DECLARE_METATYPE(tpg::LessonPanel::Plan)
Q_DECLARE_METATYPE(tpg::GuidedLesson::TimedRow)

namespace tpg {

using whatif::LayoutSlot;

namespace {

const QString kPlanLane = QStringLiteral("lesson-plan");
const QString kCheckLane = QStringLiteral("lesson-check");

QString q(const std::string& s) { return QString::fromStdString(s); }

// A comparison's sentence ("B is 12.0% slower: ...", "B takes the same time") said of the
// program the student changed.
QString aboutIt(const std::string& comparisonSentence) {
    QString text = q(comparisonSentence);
    if (text.startsWith(QStringLiteral("B "))) text.replace(0, 1, QObject::tr("It"));
    return text;
}
QString layoutLabel(const std::vector<int>& l) {
    return q(explain::layoutText(l));
}

// The first start that offers a scenario (lesson::layoutLessonStarts).
LessonPanel::Plan planLesson(const TpuGraph& g, JobControl& control) {
    LessonPanel::Plan plan;
    auto tpu = std::make_shared<synth::TpuCostModel>(g);
    const auto keepGoing = [&control](double done) {
        control.setProgress(done);
        return !control.cancelled();
    };
    for (const lesson::LessonStart& start : lesson::layoutLessonStarts(g)) {
        if (control.cancelled()) break;
        plan.scenario = lesson::findLayoutLesson(g, *tpu, start.row, keepGoing);
        plan.start = QString::fromStdString(start.what);
        if (plan.scenario) break;
    }
    plan.tpu = std::move(tpu);
    return plan;
}

}  // namespace

LessonPanel::LessonPanel(WhatIfPanel* whatIf, QWidget* parent)
    : GuidedLesson(whatIf, true, kSteps, parent),
      m_runner(new JobRunner(QStringLiteral("lesson"), this)) {
    beginButton()->setToolTip(tr("Start the lesson on the open layout file (or the sample's)"));
    connect(m_runner, &JobRunner::finished, this, [this](quint64 id, const QVariant& result) {
        if (id == m_planJob) {
            m_planJob = 0;
            onPlanned(result.value<Plan>());
        } else if (id == m_checkJob) {
            m_checkJob = 0;
            m_check = result.value<TimedRow>();
            recordProgress();
            refresh();
        }
    });
    connect(m_runner, &JobRunner::progressed, this, [this](quint64 id, double done, const QString&) {
        if (id != m_planJob) return;
        m_message = tr("Looking in %1 for a convolution to teach with… %2%")
                        .arg(q(m_graph.name()))
                        .arg(static_cast<int>(100 * std::clamp(done, 0.0, 1.0)));
        refresh();
    });
    connect(m_runner, &JobRunner::failed, this, [this](quint64 id, const QString& message) {
        if (id != m_planJob && id != m_checkJob) return;
        unavailable(tr("The lesson cannot run on this file: %1").arg(message));
    });
    m_message =
        tr("A guided lesson on how a tensor's layout changes a program's runtime, with the "
           "synthetic TPU's figures. Press <b>Begin</b>; then Page Down, as a presenter's remote "
           "sends, steps through it.");
    refresh();
}

LessonPanel::~LessonPanel() { m_runner->cancelAll(); }

void LessonPanel::stop() {
    m_runner->cancelAll();
    m_planJob = m_checkJob = 0;
    m_scenario.reset();
    m_check.reset();
    m_tpu.reset();
}

void LessonPanel::plan() {
    m_phase = Phase::Planning;
    m_message = tr("Looking in %1 for a convolution to teach with…").arg(q(m_graph.name()));
    refresh();
    const TpuGraph g = m_graph;
    m_planJob = m_runner->submit(kPlanLane, [g](JobControl& control) { return QVariant::fromValue(planLesson(g, control)); });
}

void LessonPanel::onPlanned(const Plan& plan) {
    if (!plan.scenario) {
        unavailable(
            tr("No configurable node of %1 makes the compiler insert a copy when its output layout "
               "changes, so this file cannot show the lesson. The sample's resnet file can: File › "
               "Open Sample.")
                .arg(q(m_graph.name())));
        return;
    }
    m_scenario = plan.scenario;
    m_tpu = plan.tpu;
    m_start = plan.start;
    m_check = TimedRow{m_scenario->startRow, m_scenario->start};
    m_changed.reset();
    m_fixed.reset();
    m_phase = Phase::Steps;
    m_whatIf->startFromRow(m_scenario->startRow, tr("lesson start: %1").arg(m_start));
    enterStep(static_cast<int>(Step::Select));
}

void LessonPanel::check() {
    const std::vector<float>& row = m_whatIf->currentRow();
    if (!m_tpu || row.empty() || (m_check && m_check->row == row)) {
        refresh();
        return;
    }
    auto tpu = m_tpu;
    m_checkJob = m_runner->submit(kCheckLane, [tpu, row](JobControl&) {
        return QVariant::fromValue(TimedRow{row, tpu->explainLayout(row.data())});
    });
}

void LessonPanel::stepEntered() {
    const lesson::LayoutLesson& s = *m_scenario;
    switch (step()) {
        case Step::Select: break;
        case Step::ChangeOutput:
            emit panelWanted(tr("What-if"));
            m_whatIf->selectNode(s.producer);
            break;
        case Step::WatchCopy:
            emit panelWanted(tr("Explain"));
            emit nodeActivated(s.consumer());
            break;
        case Step::FixConsumer:
            emit panelWanted(tr("What-if"));
            emit nodeActivated(s.consumer());
            break;
        case Step::Compare: emit panelWanted(tr("Explain")); break;
    }
}

void LessonPanel::showMe() {
    if (!m_scenario) return;
    const lesson::LayoutLesson& s = *m_scenario;
    bool ok = true;
    switch (step()) {
        case Step::Select: emit nodeActivated(s.producer); break;
        case Step::ChangeOutput:
            ok = m_whatIf->setLayout(s.producer, LayoutSlot::Output, s.badLayout);
            break;
        case Step::WatchCopy:
        case Step::Compare: emit nodeActivated(s.consumer()); break;
        case Step::FixConsumer:
            if (producerChanged(m_whatIf->currentRow())) {
                ok = m_whatIf->setLayout(s.consumer(), s.consumerSlot, arrivingLayout());
            } else {  // the change was undone: make it again, then fix it
                ok = m_whatIf->setLayout(s.producer, LayoutSlot::Output, s.badLayout) &&
                     m_whatIf->setLayout(s.consumer(), s.consumerSlot, s.fixLayout());
            }
            break;
    }
    if (!ok) m_message = m_whatIf->lastError();
    refresh();
}

void LessonPanel::recordProgress() {
    if ((step() == Step::ChangeOutput || step() == Step::WatchCopy) && scenarioCopyPresent())
        m_changed = m_check;
    if (step() == Step::FixConsumer && stepDone()) m_fixed = m_check;
}

bool LessonPanel::producerChanged(const std::vector<float>& row) const {
    const std::vector<int> out = whatif::layoutOf(m_graph, row, m_scenario->producer, LayoutSlot::Output);
    return !out.empty() && out != m_scenario->startLayout;
}

std::vector<int> LessonPanel::arrivingLayout() const {
    const lesson::LayoutLesson& s = *m_scenario;
    for (const auto* check : {&m_check, &m_changed})
        if (*check)
            if (const synth::EdgeCost* copy =
                    lesson::copyBetween((*check)->cost, s.copy.producer, s.consumer()))
                return copy->fromLayout;
    return s.fixLayout();
}

bool LessonPanel::scenarioCopyPresent() const {
    return m_scenario && m_check &&
           lesson::copyBetween(m_check->cost, m_scenario->copy.producer, m_scenario->consumer());
}

bool LessonPanel::stepDone() const {
    if (m_phase != Phase::Steps) return false;
    const lesson::LayoutLesson& s = *m_scenario;
    switch (step()) {
        case Step::Select: return m_selected == s.producer;
        case Step::ChangeOutput: return scenarioCopyPresent();
        case Step::WatchCopy:
        case Step::Compare: return true;
        case Step::FixConsumer:
            return m_check && !scenarioCopyPresent() && producerChanged(m_check->row);
    }
    return false;
}

QString LessonPanel::nodeText(int32_t node) const {
    TensorShape shape = tensorShape(m_graph.nodeFeatures(node), m_graph.nodeFeatureWidth());
    shape.minorToMajor.clear();  // the lesson names layouts itself: the configuration's, not the file's default
    return tr("<b>#%1</b> (%2 <tt>%3</tt>)")
        .arg(node)
        .arg(q(m_graph.opcodeName(node)), tensorString(shape).toHtmlEscaped());
}

QString LessonPanel::titleText() const {
    if (m_phase != Phase::Steps) return tr("Learn: how layout affects runtime");
    static const char* const titles[kSteps] = {
        QT_TR_NOOP("Select a convolution"), QT_TR_NOOP("Change its output layout"),
        QT_TR_NOOP("Watch the copy appear"), QT_TR_NOOP("Fix it at the consumer"), QT_TR_NOOP("Compare")};
    QString title = tr(titles[m_step]);
    if (step() == Step::Select && m_graph.opcodeName(m_scenario->producer) != "convolution")
        title = tr("Select a %1").arg(q(m_graph.opcodeName(m_scenario->producer)));
    return title;
}

QString LessonPanel::stepBody() const {
    const lesson::LayoutLesson& s = *m_scenario;
    const QString p = nodeText(s.producer), c = nodeText(s.consumer());
    const QString from = layoutLabel(s.startLayout), to = layoutLabel(s.badLayout);
    switch (step()) {
        case Step::Select:
            return tr("<p>We start from %7: %1 %8. A layout lists a tensor's dimensions minor to "
                      "major: in <tt>%2</tt> dimension %3 is the most minor, its elements adjacent "
                      "in memory.</p><p>%4 writes its output as <tt>%2</tt>; %5 reads it further "
                      "on. <b>Click #%6 in the graph</b> (or type %6 in the search box).</p>")
                .arg(ns(s.start.totalNs), from)
                .arg(s.startLayout.empty() ? 0 : s.startLayout.front())
                .arg(p, c)
                .arg(s.producer)
                .arg(m_start, bySynthTpu());
        case Step::ChangeOutput:
            return tr("<p>In the <b>What-if</b> tab, set #%1's <b>output</b> layout to "
                      "<b><tt>%2</tt></b> (it is <tt>%3</tt> now).</p><p>The compiler passes a "
                      "layout on through elementwise ops: %4 after #%1 will follow it. #%5 asks "
                      "for <tt>%3</tt>.</p>")
                .arg(s.producer)
                .arg(to, from)
                .arg(countOf(static_cast<int64_t>(s.propagatedTo.size()), tr("node"), tr("nodes")))
                .arg(s.consumer());
        case Step::WatchCopy: return watchText();
        case Step::FixConsumer:
            return tr("<p>A copy is the compiler reconciling two layouts. Instead of changing #%1 "
                      "back, let the consumer read what arrives: set #%2's <b>%3</b> layout to "
                      "<b><tt>%4</tt></b>.</p>")
                .arg(s.producer)
                .arg(s.consumer())
                .arg(QLatin1String(whatif::slotName(s.consumerSlot)),
                     layoutLabel(arrivingLayout()));
        case Step::Compare:
            return compareText();
    }
    return {};
}

QString LessonPanel::watchText() const {
    const lesson::LayoutLesson& s = *m_scenario;
    const synth::CostBreakdown& now = m_check ? m_check->cost : s.bad;
    const synth::EdgeCost* copy = lesson::copyBetween(now, s.copy.producer, s.consumer());
    if (!copy) {
        // Back from a later step: the fix is in place, so making the change again would not help.
        const auto consumerReads = [&](const std::vector<float>& row) {
            return whatif::layoutOf(m_graph, row, s.consumer(), s.consumerSlot);
        };
        if (m_check && producerChanged(m_check->row) &&
            consumerReads(m_check->row) != consumerReads(s.startRow))
            return tr("<p>There is no copy into #%1 now: step 4's fix has it read what #%2 writes. "
                      "<b>Edit › Undo</b> that fix to see the copy again.</p>")
                .arg(s.consumer())
                .arg(s.producer);
        return tr("<p>There is no copy into #%1 in the configuration being edited: <b>Back</b> to "
                  "make one.</p>")
            .arg(s.consumer());
    }
    QString text =
        tr("<p>#%1 now writes <tt>%2</tt> but #%3 reads <tt>%4</tt>, so the compiler "
           "inserts a <b>copy</b> between them: the dashed edge on the graph, "
           "<b>%5</b>%6.</p>")
            .arg(copy->producer)
            .arg(layoutLabel(copy->fromLayout))
            .arg(copy->consumer)
            .arg(layoutLabel(copy->toLayout), ns(copy->copyNs),
                 explain::isTransposing(*copy) ? tr(" (it changes the most-minor dimension, so it "
                                                    "runs through the transpose unit)")
                                               : QString());
    text += tr("<p>The runtime went from %1 to <b>%2</b> (%3) %5. %4.</p>")
                .arg(ns(s.start.totalNs), ns(now.totalNs), percent(s.start.totalNs, now.totalNs),
                     aboutIt(explain::compare(m_graph, s.start, now).sentence), bySynthTpu());
    if (m_whatIf->hasReport() && m_whatIf->report().predictedNs > 0) {
        const whatif::WhatIfReport& r = m_whatIf->report();
        text += tr("<p>The learned model predicts %1 (rank %2 of %3 configurations)%4. The "
                   "<b>Explain</b> tab breaks the runtime down.</p>")
                    .arg(ns(r.predictedNs))
                    .arg(countText(r.rank))
                    .arg(countText(r.configs))
                    .arg(r.extrapolating
                             ? tr(", extrapolating: no measured configuration is this close") +
                                   extrapolationAdvice()
                             : QString());
    }
    return text;
}

QString LessonPanel::compareText() const {
    const lesson::LayoutLesson& s = *m_scenario;
    // A paragraph per configuration, its figures in one order: a table of them was wider than the
    // dock on a laptop's screen and cut the text after it too.
    QString text;
    const auto entry = [&](const QString& name, const synth::CostBreakdown& b,
                           const std::vector<float>& row) {
        const explain::CostSummary sum = explain::summarize(m_graph, b);
        const QString change =
            &b == &s.start ? QString() : tr(" (%1)").arg(percent(s.start.totalNs, b.totalNs));
        text += tr("<p><b>%1</b>: <b>%2</b>%3 %7 · %4 · padding + layout %5%6</p>")
                    .arg(name, ns(b.totalNs), change,
                         sum.copies == 1 ? tr("1 copy") : tr("%1 copies").arg(sum.copies),
                         ns(sum.categoryNs("padding") + sum.categoryNs("layout preference")),
                         predictedText(row), bySynthTpu());
    };
    // What the class made at steps 2 and 4 (the lesson's own edits when a step was skipped past).
    const TimedRow changed = m_changed.value_or(TimedRow{s.badRow, s.bad});
    const TimedRow fixed = m_fixed.value_or(TimedRow{s.fixedRow, s.fixed});
    entry(tr("Start (%1)").arg(m_start), s.start, s.startRow);
    entry(tr("#%1 output %2")
              .arg(s.producer)
              .arg(layoutLabel(
                  whatif::layoutOf(m_graph, changed.row, s.producer, LayoutSlot::Output))),
          changed.cost, changed.row);
    entry(tr("…and #%1 %2 %3")
              .arg(s.consumer())
              .arg(QLatin1String(whatif::slotName(s.consumerSlot)),
                   layoutLabel(whatif::layoutOf(m_graph, fixed.row, s.consumer(), s.consumerSlot))),
          fixed.cost, fixed.row);
    const double fixedNs = fixed.cost.totalNs;
    text += tr("<p>Fixing the consumer won back %1. ").arg(ns(changed.cost.totalNs - fixedNs));
    text +=
        fixedNs > s.start.totalNs
            ? tr("The program is still %1 slower than the start: #%2's new layout costs padding or "
                 "layout preference of its own. %3.</p>")
                  .arg(percent(s.start.totalNs, fixedNs))
                  .arg(s.producer)
                  .arg(aboutIt(explain::compare(m_graph, s.start, fixed.cost).sentence))
            : tr("It is now faster than the start: a better configuration than the one we began "
                 "with.</p>");
    text += tr("<p>Layouts interact: changing one node's costs copies wherever its users disagree, "
               "and the fix is to change them together. Try another layout with the What-if "
               "editor; <b>%1</b> runs the lesson once more.</p>")
                .arg(beginText());
    return text;
}

QString LessonPanel::statusText() const {
    if (m_phase != Phase::Steps) return {};
    const lesson::LayoutLesson& s = *m_scenario;
    if (stepDone()) {
        switch (step()) {
            case Step::Select: return tr("✓ #%1 is selected. <b>Next</b>.").arg(s.producer);
            case Step::ChangeOutput: return tr("✓ A copy appeared. <b>Next</b>: watch it.");
            case Step::FixConsumer:
                return tr("✓ The copy is gone: %1 → %2.")
                    .arg(ns(m_changed ? m_changed->cost.totalNs : s.bad.totalNs),
                         ns(m_check->cost.totalNs));
            default: return {};
        }
    }
    if (m_checkJob != 0) return tr("Checking the edit with the synthetic TPU…");
    const std::vector<float> row = m_check ? m_check->row : s.startRow;
    const std::vector<int> out = whatif::layoutOf(m_graph, row, s.producer, LayoutSlot::Output);
    switch (step()) {
        case Step::Select: return tr("Waiting for #%1 to be selected (<b>Show me</b> selects it).").arg(s.producer);
        case Step::ChangeOutput:
            if (out != s.startLayout && !out.empty())
                return tr("#%1 now writes <tt>%2</tt>: that adds no copy into #%3. The lesson's "
                          "layout is <tt>%4</tt>.")
                    .arg(s.producer)
                    .arg(layoutLabel(out))
                    .arg(s.consumer())
                    .arg(layoutLabel(s.badLayout));
            return tr("Waiting for #%1's output layout to change (<b>Show me</b> does it).").arg(s.producer);
        case Step::FixConsumer:
            if (!producerChanged(row))
                return tr("#%1 writes <tt>%2</tt> again: undoing the change is one fix, but change "
                          "it and fix the consumer instead (<b>Show me</b>).")
                    .arg(s.producer)
                    .arg(layoutLabel(s.startLayout));
            return tr("Waiting: the copy into #%1 is still there.").arg(s.consumer());
        default: return {};
    }
}

}  // namespace tpg
