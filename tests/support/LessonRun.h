#pragma once

// Test support: a guided lesson begun on a file with its predictions, and waiting for it to settle.
#include <QApplication>
#include <QHBoxLayout>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QTest>

#include "GuidedLesson.h"
#include "JobRunner.h"
#include "PredictedFile.h"
#include "WhatIfPanel.h"

// Waits until the what-if editor is quiet and `lesson` is not checking an edit on its worker.
inline bool settleLesson(tpg::GuidedLesson& lesson, tpg::WhatIfPanel& whatIf) {
    for (int i = 0; i < 600; ++i) {
        QTest::qWait(20);
        if (!whatIf.busy() && !lesson.statusText().startsWith(QStringLiteral("Checking")))
            return true;
    }
    return false;
}

// `lesson` begun on `g` (opened as `file`, its predictions in); false when its steps did not start.
inline bool beginLesson(tpg::JobRunner& runner, tpg::WhatIfPanel& whatIf, tpg::GuidedLesson& lesson,
                        const tpg::TpuGraph& g, const QString& file) {
    whatIf.setGraph(g, file);
    lesson.setGraph(g, file);
    whatIf.setPredictions(predictedFile(runner, file, g));
    lesson.begin();
    for (int i = 0; i < 1500 && !lesson.running(); ++i) QTest::qWait(20);
    return lesson.running() && settleLesson(lesson, whatIf);
}

// Does every step of the running `lesson` by Show me (the graph's selection answering it) and
// Next, up to its last step; each step's text once done into `texts`.
inline bool showMeToTheEnd(tpg::GuidedLesson& lesson, tpg::WhatIfPanel& whatIf,
                           QStringList* texts = nullptr) {
    const auto select = QObject::connect(&lesson, &tpg::GuidedLesson::nodeActivated, &lesson,
                                         &tpg::GuidedLesson::selectNode);
    constexpr int kMostSteps = 20;  // more than any lesson has
    bool settled = true;
    for (int i = 0; i < kMostSteps && settled; ++i) {
        lesson.showMe();
        settled = settleLesson(lesson, whatIf);
        if (texts) texts->append(lesson.bodyText());
        if (!lesson.nextButton()->isEnabled()) break;
        lesson.next();
    }
    QObject::disconnect(select);
    return settled;
}

// `g` with its runtimes replaced: a file the synthetic TPU did not time (`scale` != 1, as a real
// TPU's measurements differ from it) or a test split's (`scale` 0, every runtime unknown).
inline tpg::TpuGraph withRuntimesScaled(const tpg::TpuGraph& g, double scale) {
    tpg::TpuGraphData d = g.data();
    for (double& r : d.runtimes) r *= scale;
    return tpg::TpuGraph(std::move(d));
}

// What a `Lesson` says of the synthetic TPU's figures on `g` with its runtimes scaled by `scale`
// (as withRuntimesScaled), shown to its last step by Show me: empty when it says what it should
// (the figures the ground truth at 1, estimates otherwise, in the first step and the comparison; an
// extrapolating model deferring to the synthetic TPU only at 1; each figure "by the synthetic
// TPU's estimate" but at 1), else what it got wrong.
template <class Lesson>
QString trustWordingProblem(const tpg::TpuGraph& g, double scale) {
    tpg::JobRunner runner(QStringLiteral("model"));
    tpg::WhatIfPanel whatIf(&runner);
    Lesson lesson(&whatIf);
    if (!beginLesson(runner, whatIf, lesson, withRuntimesScaled(g, scale), QStringLiteral("f.npz")))
        return QStringLiteral("the lesson did not start");
    const QString first = lesson.bodyText();
    QStringList steps;
    if (!showMeToTheEnd(lesson, whatIf, &steps) || lesson.step() != Lesson::Step::Compare)
        return QStringLiteral("Show me stopped before the comparison: ") + lesson.statusText();
    const auto expect = [](const QString& text, const QString& phrase, bool wanted) {
        return text.contains(phrase) == wanted
                   ? QString()
                   : QStringLiteral("'%1' %2 in: %3")
                         .arg(phrase,
                              wanted ? QStringLiteral("missing") : QStringLiteral("unexpected"),
                              text);
    };
    const QString all = steps.join(QString());
    for (const QString& problem :
         {expect(first, QStringLiteral("figures are estimates"), scale != 1.0),
          expect(lesson.bodyText(), QStringLiteral("figures are estimates"), scale != 1.0),
          expect(first, QStringLiteral("timed on a real TPU"), scale > 1.0),
          expect(first, QStringLiteral("no measured runtimes"), scale == 0.0),
          expect(all, QStringLiteral("extrapolating"), scale != 0.0),
          expect(all, QStringLiteral("trust the synthetic TPU"), scale == 1.0),
          expect(all, QStringLiteral("only a TPU can settle it"), scale > 1.0)})
        if (!problem.isEmpty()) return QStringLiteral("runtimes x%1: ").arg(scale) + problem;
    // Each figure says whose it is: an estimate wherever the synthetic TPU did not time the file.
    const QString every = first + all + lesson.bodyText();
    const qsizetype figures = every.count(QStringLiteral("by the synthetic TPU"));
    const qsizetype estimates = every.count(QStringLiteral("by the synthetic TPU's estimate"));
    if (figures < 3 || estimates != (scale == 1.0 ? 0 : figures))
        return QStringLiteral(
                   "runtimes x%1: %2 of %3 figures by the synthetic TPU say estimate: %4")
            .arg(scale)
            .arg(estimates)
            .arg(figures)
            .arg(every);
    return {};
}

// What goes wrong when a presenter's remote steps through a `Lesson` on `g` from anywhere in the
// window (empty when nothing does): Page Down scrolls a step's text on, then does the step, then
// goes Next, to the last step; Page Up scrolls back, then goes Back. A text field with the focus
// keeps the keys.
template <class Lesson>
QString remoteProblem(const tpg::TpuGraph& g) {
    tpg::JobRunner runner(QStringLiteral("model"));
    tpg::WhatIfPanel whatIf(&runner);
    QWidget window;
    auto* elsewhere = new QPushButton(QStringLiteral("elsewhere"), &window);
    auto* notes = new QPlainTextEdit(&window);
    notes->setPlainText(QStringLiteral("a line\n").repeated(200));
    auto* lesson = new Lesson(&whatIf, &window);
    auto* layout = new QHBoxLayout(&window);
    layout->addWidget(elsewhere);
    layout->addWidget(notes);
    layout->addWidget(lesson);
    QObject::connect(lesson, &Lesson::nodeActivated, lesson, &Lesson::selectNode);
    window.resize(800, 160);  // the first step's text scrolls
    window.show();
    QApplication::setActiveWindow(&window);
    if (!QTest::qWaitForWindowActive(&window)) return QStringLiteral("no active window");
    if (!lesson->bodyText().contains(QStringLiteral("Page Down")))
        return QStringLiteral("the lesson's first text does not name its key");
    if (!beginLesson(runner, whatIf, *lesson, g, QStringLiteral("f.npz")))
        return QStringLiteral("the lesson did not start");
    QScrollBar* text = lesson->textArea()->verticalScrollBar();
    if (!QTest::qWaitFor([&] { return text->maximum() > 0; }))
        return QStringLiteral("no scrolling");
    notes->setFocus();
    QTest::keyClick(notes, Qt::Key_PageDown);
    if (notes->verticalScrollBar()->value() == 0 || text->value() != 0)
        return QStringLiteral("the text field lost its Page Down");
    elsewhere->setFocus();
    QTest::keyClick(elsewhere, Qt::Key_PageDown);
    if (lesson->step() != Lesson::Step::Select || text->value() == 0)
        return QStringLiteral("Page Down did not scroll the first step's text");
    for (int i = 0; i < 60 && lesson->step() != Lesson::Step::Compare; ++i) {
        QTest::keyClick(elsewhere, Qt::Key_PageDown);
        if (!settleLesson(*lesson, whatIf)) return QStringLiteral("the lesson did not settle");
    }
    if (lesson->step() != Lesson::Step::Compare)
        return QStringLiteral("Page Down stopped at: ") + lesson->titleText();
    text->setValue(text->maximum());
    for (int i = 0; i < 20 && lesson->step() == Lesson::Step::Compare; ++i)
        QTest::keyClick(elsewhere, Qt::Key_PageUp);
    if (static_cast<int>(lesson->step()) != static_cast<int>(Lesson::Step::Compare) - 1)
        return QStringLiteral("Page Up went to: ") + lesson->titleText();
    return {};
}
