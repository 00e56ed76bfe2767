#include "GuidedLesson.h"

#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QKeyEvent>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QShortcut>
#include <QTextEdit>
#include <QVBoxLayout>

#include "LessonFrame.h"
#include "RuntimeText.h"
#include "WhatIfPanel.h"
#include "explain/CostExplanation.h"

namespace tpg {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// Lists, text and number fields page themselves: a student paging the configuration table does not
// step the lesson.
bool pagesItself(const QWidget* w) {
    for (; w; w = w->isWindow() ? nullptr : w->parentWidget())
        if (qobject_cast<const QAbstractItemView*>(w) || qobject_cast<const QTextEdit*>(w) ||
            qobject_cast<const QPlainTextEdit*>(w) || qobject_cast<const QAbstractSpinBox*>(w))
            return true;
    return false;
}

}  // namespace

GuidedLesson::GuidedLesson(WhatIfPanel* whatIf, bool onLayoutFiles, int steps, QWidget* parent)
    : QWidget(parent), m_whatIf(whatIf), m_onLayoutFiles(onLayoutFiles), m_steps(steps) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_frame = new LessonFrame(this);
    layout->addWidget(m_frame);
    connect(m_frame->beginButton(), &QPushButton::clicked, this, &GuidedLesson::begin);
    connect(m_frame->backButton(), &QPushButton::clicked, this, &GuidedLesson::back);
    connect(m_frame->showMeButton(), &QPushButton::clicked, this, &GuidedLesson::showMe);
    connect(m_frame->nextButton(), &QPushButton::clicked, this, &GuidedLesson::next);
    // Application-wide: a floated lesson dock is a window of its own (a modal dialog still blocks).
    m_pageDown = new QShortcut(QKeySequence(Qt::Key_PageDown), this, this, &GuidedLesson::readOn,
                               Qt::ApplicationShortcut);
    m_pageUp = new QShortcut(QKeySequence(Qt::Key_PageUp), this, this, &GuidedLesson::readBack,
                             Qt::ApplicationShortcut);
    enableKeys();
    qApp->installEventFilter(this);
    m_frame->nextButton()->setToolTip(
        tr("The next step. Page Down, as a presenter's remote sends, reads on from anywhere in the "
           "window: the rest of the step's text, then Show me, then Next"));
    m_frame->backButton()->setToolTip(tr("The step before (Page Up)"));
    connect(m_whatIf, &WhatIfPanel::evaluated, this, &GuidedLesson::onEvaluated);
    // The model's figures join the text once the file's predictions have ranked the editor's runs.
    connect(m_whatIf, &WhatIfPanel::reranked, this, &GuidedLesson::refresh);
}

QScrollArea* GuidedLesson::textArea() const {
    return m_frame->textArea();
}
QPushButton* GuidedLesson::beginButton() const {
    return m_frame->beginButton();
}
QPushButton* GuidedLesson::showMeButton() const {
    return m_frame->showMeButton();
}
QPushButton* GuidedLesson::nextButton() const {
    return m_frame->nextButton();
}
QPushButton* GuidedLesson::backButton() const {
    return m_frame->backButton();
}

void GuidedLesson::setGraph(const TpuGraph& graph, const QString& file) {
    m_graph = graph;
    m_file = file;
    m_selected = -1;
    if (m_phase == Phase::WaitingForFile) {
        m_message = !graph.isNull() && isLessonFile(graph)
                        ? tr("Waiting for the what-if editor on %1…").arg(q(graph.name()))
                        : tr("The lesson needs a %1 file; this is not one.").arg(fileKind());
        refresh();
        return;
    }
    if (m_phase == Phase::Idle) return;
    stop();
    m_phase = Phase::Idle;
    m_message = tr("The lesson's file was closed. <b>Begin</b> starts it again on this one.");
    refresh();
}

void GuidedLesson::begin() {
    stop();
    if (m_graph.isNull() || !isLessonFile(m_graph)) {
        m_phase = Phase::WaitingForFile;
        m_message = tr("The lesson runs on a %1 file: opening the sample's…").arg(fileKind());
        refresh();
        emit fileWanted();
        return;
    }
    if (!m_whatIf->ready()) {
        m_phase = Phase::WaitingForFile;
        m_message = tr("Waiting for the what-if editor on %1…").arg(q(m_graph.name()));
        refresh();
        return;
    }
    plan();
}

void GuidedLesson::onEvaluated() {
    if (m_phase == Phase::WaitingForFile && !m_graph.isNull() && isLessonFile(m_graph) &&
        m_whatIf->ready())
        plan();
    else if (m_phase == Phase::Steps)
        check();
}

void GuidedLesson::selectNode(int node) {
    m_selected = node;
    if (m_phase == Phase::Steps) refresh();
}

void GuidedLesson::next() {
    if (m_phase != Phase::Steps || !stepDone() || m_step == stepCount() - 1) return;
    enterStep(m_step + 1);
}

void GuidedLesson::back() {
    if (m_phase != Phase::Steps || m_step == 0) return;
    enterStep(m_step - 1);
}

bool GuidedLesson::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::ShortcutOverride && m_pageDown->isEnabled()) {
        const int key = static_cast<QKeyEvent*>(event)->key();
        if ((key == Qt::Key_PageDown || key == Qt::Key_PageUp) &&
            pagesItself(qobject_cast<const QWidget*>(watched))) {
            event->accept();  // the widget's key, not the lesson's
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void GuidedLesson::readOn() {
    QScrollBar* text = textArea()->verticalScrollBar();
    if (text->value() < text->maximum())
        text->triggerAction(QAbstractSlider::SliderPageStepAdd);
    else if (stepDone())
        next();
    else
        showMe();  // an edit made already is not made twice
}

void GuidedLesson::readBack() {
    QScrollBar* text = textArea()->verticalScrollBar();
    if (text->value() > text->minimum())
        text->triggerAction(QAbstractSlider::SliderPageStepSub);
    else
        back();
}

void GuidedLesson::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    enableKeys();
}

void GuidedLesson::hideEvent(QHideEvent* event) {
    QWidget::hideEvent(event);
    enableKeys();
}

void GuidedLesson::enableKeys() {
    const bool on = running() && isVisible();
    m_pageDown->setEnabled(on);
    m_pageUp->setEnabled(on);
}

void GuidedLesson::enterStep(int step) {
    m_step = step;
    m_message.clear();
    stepEntered();
    refresh();
}

void GuidedLesson::unavailable(const QString& message) {
    stop();
    m_phase = Phase::Unavailable;
    m_message = message;
    refresh();
}

QString GuidedLesson::ns(double v) {
    return q(explain::nsText(v));
}

QString GuidedLesson::percent(double from, double to) {
    return QStringLiteral("%1%2%")
        .arg(to >= from ? QStringLiteral("+") : QString())
        .arg(100 * (to / from - 1), 0, 'f', 1);
}

QString GuidedLesson::trustParagraph() const {
    if (m_whatIf->synthIsGroundTruth()) return {};
    return m_graph.runtimesKnown()
               ? tr("<p><i>On this file the synthetic TPU's figures are estimates: the file was "
                    "timed on a real TPU, which the synthetic TPU only models (the Explain tab "
                    "gives their Kendall against its measurements).</i></p>")
               : tr("<p><i>On this file the synthetic TPU's figures are estimates: it holds no "
                    "measured runtimes to check them against.</i></p>");
}

QString GuidedLesson::bySynthTpu() const {
    return bySynthTpuText(m_whatIf->synthIsGroundTruth());
}

QString GuidedLesson::extrapolationAdvice() const {
    return m_whatIf->synthIsGroundTruth() ? tr(", so trust the synthetic TPU here")
                                          : tr(", and the synthetic TPU is an estimate on this "
                                               "file: only a TPU can settle it");
}

QString GuidedLesson::predictedText(const std::vector<float>& row) const {
    for (const WhatIfPanel::Run& r : m_whatIf->runs())
        if (r.row == row && r.report.predictedNs > 0)
            return tr(" · the model predicts %1").arg(ns(r.report.predictedNs));
    return {};
}

QString GuidedLesson::fileKind() const {
    return m_onLayoutFiles ? tr("layout") : tr("tile");
}

QString GuidedLesson::bodyText() const {
    if (m_phase != Phase::Steps) return m_message;
    // The first step gives the start's figures and the last compares them all: both say how far
    // they go on this file.
    const bool givesFigures = m_step == 0 || m_step == m_steps - 1;
    return givesFigures ? stepBody() + trustParagraph() : stepBody();
}

QString GuidedLesson::beginText() const {
    return m_phase == Phase::Idle || m_phase == Phase::Unavailable ? tr("Begin")
                                                                   : tr("Start Again");
}

void GuidedLesson::refresh() {
    const bool steps = m_phase == Phase::Steps;
    QString status = statusText();
    if (steps && !m_message.isEmpty() && !stepDone())
        status += QStringLiteral("<br>") + m_message.toHtmlEscaped();
    m_frame->setTexts(steps ? tr("Step %1 of %2").arg(m_step + 1).arg(stepCount()) : QString(),
                      titleText(), bodyText(), status);
    const bool last = m_step == stepCount() - 1;
    m_frame->setButtons(beginText(), steps, steps && m_step != 0, steps && stepDone() && !last);
    enableKeys();
    emit stepShown();
}

}  // namespace tpg
