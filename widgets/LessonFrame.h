#pragma once

#include <QString>
#include <QWidget>

class QLabel;
class QPushButton;
class QScrollArea;

namespace tpg {

// What a guided lesson shows, in type a class can read: its title with the step counter beside
// it, the step's text and status (scrolled when the dock is short), and below them Begin, Back,
// Show me and Next, which stay in view. The lessons (LessonPanel, TileLessonPanel) fill it.
class LessonFrame : public QWidget {
    Q_OBJECT
public:
    explicit LessonFrame(QWidget* parent = nullptr);

    // A new title scrolls the text back to its top: a new step reads from its start.
    void setTexts(const QString& counter, const QString& title, const QString& body,
                  const QString& status);
    // Show me, the step's own action, takes the focus of a button its press greyed out.
    void setButtons(const QString& beginText, bool showMe, bool back, bool next);

    QScrollArea* textArea() const { return m_scroll; }
    QPushButton* beginButton() const { return m_begin; }
    QPushButton* showMeButton() const { return m_showMe; }
    QPushButton* nextButton() const { return m_next; }
    QPushButton* backButton() const { return m_back; }

private:
    QLabel* m_counter;
    QLabel* m_title;
    QLabel* m_body;
    QLabel* m_status;
    QScrollArea* m_scroll;
    QPushButton* m_begin;
    QPushButton* m_back;
    QPushButton* m_showMe;
    QPushButton* m_next;
};

}  // namespace tpg
