#pragma once

#include <QString>
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "graph/TpuGraph.h"
#include "lesson/TileLesson.h"

class QPushButton;
class QScrollArea;

namespace tpg {

class LessonFrame;
class WhatIfPanel;

// "Learn: how tile sizes affect runtime", the tile files' guided lesson, on the open tile file (the
// window opens the sample's when the open file is not one). It starts the what-if editor from the
// compiler's default tile and walks through five steps: select the kernel's output, make its tile
// one lane wide, watch the idle lanes in the Explain tab, make it one tile, compare. Each step says
// what to do with the synthetic TPU's figures; *Show me* does it through the what-if editor (so it
// is undoable); a step is done when the edited configuration shows it, however it was made. A tile
// kernel is tens of nodes: the synthetic TPU evaluates it in microseconds, here on the GUI thread.
class TileLessonPanel : public QWidget {
    Q_OBJECT
public:
    enum class Step { Select, Narrow, WatchLanes, OneTile, Compare };
    static constexpr int kSteps = 5;

    explicit TileLessonPanel(WhatIfPanel* whatIf, QWidget* parent = nullptr);

    void setGraph(const TpuGraph& graph, const QString& file);
    // Starts (again) on the open file; asks for a tile file first when the open one is not.
    void begin();
    void selectNode(int node);  // the graph's selection
    void showMe();              // does the current step
    void next();
    void back();

    bool running() const { return m_phase == Phase::Steps; }
    Step step() const { return m_step; }
    bool stepDone() const;
    const std::optional<lesson::TileLesson>& scenario() const { return m_scenario; }
    QString titleText() const;
    QString bodyText() const;
    QString statusText() const;
    QScrollArea* textArea() const;
    QPushButton* beginButton() const;
    QPushButton* showMeButton() const;
    QPushButton* nextButton() const;
    QPushButton* backButton() const;

signals:
    void tileFileWanted();
    void nodeActivated(int node);
    void panelWanted(const QString& title);  // "What-if", "Explain": the dock to bring forward
    void stepShown();

private:
    enum class Phase { Idle, WaitingForFile, Steps, Unavailable };
    // A configuration the lesson looked at, as the synthetic TPU times it.
    struct Checked {
        std::vector<float> row;
        synth::CostBreakdown cost;
    };

    void onEvaluated();
    void plan();
    void check();
    void enterStep(Step step);
    void refresh();
    QString stepBody(Step step) const;
    QString selectText() const;
    QString narrowText() const;
    QString watchText() const;
    QString oneTileText() const;
    QString compareText() const;
    QString configurationLine(const QString& name, const Checked& c) const;
    QString beginText() const;
    QString tileText(const std::vector<float>& row) const;  // "[1,128,32,16]"
    int64_t laneTile(const std::vector<float>& row) const;
    bool narrowed(const Checked& c) const;
    QString predictedText() const;  // the model's figure for the edited configuration, or ""

    WhatIfPanel* m_whatIf;
    LessonFrame* m_frame;
    TpuGraph m_graph;
    QString m_file;
    Phase m_phase = Phase::Idle;
    Step m_step = Step::Select;
    int m_selected = -1;
    std::optional<lesson::TileLesson> m_scenario;
    std::shared_ptr<const synth::TpuCostModel> m_tpu;
    std::optional<Checked> m_now;              // the edited configuration
    std::optional<Checked> m_narrow, m_whole;  // what the class made at steps 2 and 4
    QString m_message;                         // the phase's text outside the steps
};

}  // namespace tpg
