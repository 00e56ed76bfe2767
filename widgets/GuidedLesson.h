#pragma once

#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

#include "graph/TpuGraph.h"
#include "synth/TpuCostModel.h"

class QPushButton;
class QScrollArea;
class QShortcut;

namespace tpg {

class LessonFrame;
class WhatIfPanel;

// What the guided lessons (LessonPanel on layout files, TileLessonPanel on tile files) share: they
// run on the open file of their kind (asking the window for the sample's first), start once the
// what-if editor is ready, walk through their steps with Begin, Back, Show me and Next in a
// LessonFrame, and stop when another file opens. A lesson finds its scenario (plan), checks each
// edit the what-if editor evaluates (check) and says each step (its texts).
class GuidedLesson : public QWidget {
    Q_OBJECT
public:
    // A configuration the lesson looked at, as the synthetic TPU times it.
    struct TimedRow {
        std::vector<float> row;
        synth::CostBreakdown cost;
    };

    // A lesson of `steps` steps on layout files (`onLayoutFiles`) or on tile files.
    GuidedLesson(WhatIfPanel* whatIf, bool onLayoutFiles, int steps, QWidget* parent = nullptr);

    void setGraph(const TpuGraph& graph, const QString& file);
    // Starts (again) on the open file once the what-if editor is ready; asks for a file of the
    // lesson's kind first when the open one is not.
    void begin();
    void selectNode(int node);  // the graph's selection
    virtual void showMe() = 0;  // does the current step
    void next();
    void back();
    // A presenter's remote sends Page Down and Page Up: Page Down reads on (the rest of the step's
    // text, then its Show me, then Next), Page Up back (the text, then Back). The keys work from
    // anywhere in the explorer while the lesson runs and shows, but for lists, text and number
    // fields, which keep their own.
    void readOn();
    void readBack();

    bool running() const { return m_phase == Phase::Steps; }
    virtual bool stepDone() const = 0;
    virtual QString titleText() const = 0;
    QString bodyText() const;
    virtual QString statusText() const = 0;
    // The step's text, scrolled when the dock is short.
    QScrollArea* textArea() const;
    QPushButton* beginButton() const;
    QPushButton* showMeButton() const;
    QPushButton* nextButton() const;
    QPushButton* backButton() const;

signals:
    void fileWanted();  // a file of the lesson's kind: the window opens the sample's
    void nodeActivated(int node);
    void panelWanted(const QString& title);  // "What-if", "Explain": the dock to bring forward
    void stepShown();  // a step (or the lesson's state) was drawn: tests wait on it

protected:
    enum class Phase { Idle, WaitingForFile, Planning, Steps, Unavailable };

    bool isLessonFile(const TpuGraph& g) const { return g.isLayout() == m_onLayoutFiles; }
    QString fileKind() const;  // "layout", "tile": in the lesson's messages
    int stepCount() const { return m_steps; }
    // Finds the scenario on m_graph; ends in enterStep(0) with m_phase Steps, or in unavailable().
    virtual void plan() = 0;
    virtual void check() = 0;  // the what-if editor evaluated an edit while the steps run
    virtual void stop() = 0;   // drops the scenario and the work on it
    virtual void
    stepEntered() = 0;  // the step's side effects: the panel to raise, the node to show
    virtual QString stepBody() const = 0;

    void enterStep(int step);
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;
    // Leaves Page Down and Page Up to a focused list, text or number field.
    bool eventFilter(QObject* watched, QEvent* event) override;
    void unavailable(const QString& message);
    void refresh();
    QString beginText() const;  // "Begin", or "Start Again" once the lesson runs
    // Figures as the lessons write them: "2.38 ms", "+12.5%" (from `from` to `to`).
    static QString ns(double v);
    static QString percent(double from, double to);
    // Who gives a runtime: "by the synthetic TPU", or on a file it did not time "by the synthetic
    // TPU's estimate", so every figure of a lesson says which it is.
    QString bySynthTpu() const;
    // What follows "the model is extrapolating": the synthetic TPU, where it is the ground truth.
    QString extrapolationAdvice() const;
    // " · the model predicts 2.38 ms" for a configuration the what-if editor has predicted, or "".
    QString predictedText(const std::vector<float>& row) const;

    WhatIfPanel* m_whatIf;
    TpuGraph m_graph;
    QString m_file;
    Phase m_phase = Phase::Idle;
    int m_step = 0;
    int m_selected = -1;
    std::shared_ptr<const synth::TpuCostModel> m_tpu;  // of the lesson's file, once planned
    QString m_message;  // the phase's text outside the steps; a refusal's within them

private:
    void onEvaluated();
    void enableKeys();  // the remote's keys: only while the lesson runs and shows
    // How far the synthetic TPU's figures go on the open file, a paragraph after the first step and
    // the last: empty on a synthetic file (they are its ground truth), "estimates" on any other.
    QString trustParagraph() const;

    bool m_onLayoutFiles;
    int m_steps;

    LessonFrame* m_frame;
    QShortcut* m_pageDown;
    QShortcut* m_pageUp;
};

}  // namespace tpg
