#pragma once

// Test support: a guided lesson begun on a file with its predictions, and waiting for it to settle.
#include <QPushButton>
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
