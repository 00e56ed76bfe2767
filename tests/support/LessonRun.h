#pragma once

// Test support: a guided lesson begun on a file with its predictions, and waiting for it to settle.
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
