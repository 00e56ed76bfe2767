#pragma once

#include <QString>
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "graph/TpuGraph.h"
#include "lesson/LayoutLesson.h"

class QScrollArea;
class QPushButton;

namespace tpg {

class JobRunner;
class LessonFrame;
class WhatIfPanel;

// "Learn: how layout affects runtime", a guided lesson a teacher can run in front of a class, on
// the open layout file (the window opens the sample's when the open file is not one). It starts
// the what-if editor from the compiler's default configuration and walks through five steps:
// select a convolution, change its output layout, watch the copy the compiler inserts, fix it by
// changing the consumer, compare. Each step says what to do with the synthetic TPU's figures;
// *Show me* does it (through the what-if editor, so it is undoable); the step is done when the
// edited configuration shows it, however it was made. The scenario is found on a worker, and
// every check of an edit runs there too (newest wins).
class LessonPanel : public QWidget {
    Q_OBJECT
public:
    enum class Step { Select, ChangeOutput, WatchCopy, FixConsumer, Compare };
    static constexpr int kSteps = 5;

    explicit LessonPanel(WhatIfPanel* whatIf, QWidget* parent = nullptr);
    ~LessonPanel() override;

    void setGraph(const TpuGraph& graph, const QString& file);
    // Starts (again) on the open file, once its predictions are in; asks for a layout file first
    // when the open one is not.
    void begin();
    void selectNode(int node);  // the graph's selection
    void showMe();              // does the current step
    void next();
    void back();

    // The worker's answers (public for the queued signals' metatypes).
    struct Plan {
        std::optional<lesson::LayoutLesson> scenario;
        QString start;  // what the lesson starts from, in words
        std::shared_ptr<const synth::TpuCostModel> tpu;
    };
    // What the synthetic TPU makes of the edited configuration the lesson is looking at.
    struct Check {
        std::vector<float> row;
        synth::CostBreakdown breakdown;
    };

    bool running() const { return m_scenario.has_value(); }
    Step step() const { return m_step; }
    bool stepDone() const;
    const std::optional<lesson::LayoutLesson>& scenario() const { return m_scenario; }
    QString titleText() const;
    QString bodyText() const;
    QString statusText() const;
    // The step's text, scrolled when the dock is short.
    QScrollArea* textArea() const;
    QPushButton* beginButton() const;
    QPushButton* showMeButton() const;
    QPushButton* nextButton() const;
    QPushButton* backButton() const;

signals:
    void layoutFileWanted();
    void nodeActivated(int node);
    void panelWanted(const QString& title);  // "What-if", "Explain": the dock to bring forward
    void stepShown();  // a step (or the lesson's state) was drawn: tests wait on it

private:
    enum class Phase { Idle, WaitingForFile, Planning, Steps, Unavailable };

    void buildUi();
    void onEvaluated();
    void plan();
    void onPlanned(const Plan& plan);
    void checkCurrentRow();
    void enterStep(Step step);
    void refresh();
    QString stepBody(Step step) const;
    QString watchText() const;
    QString compareText() const;
    QString beginText() const;  // the Begin button's label: "Start Again" once the lesson runs
    QString nodeText(int32_t node) const;
    bool scenarioCopyPresent() const;
    void recordProgress();
    bool producerChanged(const std::vector<float>& row) const;
    std::vector<int> arrivingLayout() const;  // what the copy's producer now writes: the consumer's fix

    WhatIfPanel* m_whatIf;
    JobRunner* m_runner;
    TpuGraph m_graph;
    QString m_file, m_lessonFile;
    Phase m_phase = Phase::Idle;
    Step m_step = Step::Select;
    int m_selected = -1;
    std::optional<lesson::LayoutLesson> m_scenario;
    std::shared_ptr<const synth::TpuCostModel> m_tpu;
    std::optional<Check> m_check;
    std::optional<Check> m_changed, m_fixed;  // what the class made at steps 2 and 4
    quint64 m_planJob = 0, m_checkJob = 0;
    QString m_message;  // the phase's text outside the steps
    QString m_start;    // what the lesson starts from, in words

    LessonFrame* m_frame;
};

}  // namespace tpg
