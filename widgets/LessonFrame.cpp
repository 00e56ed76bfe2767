#include "LessonFrame.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>

#include "FocusKeepingEnable.h"

namespace tpg {

namespace {

constexpr double kTeachingFontScale = 1.2;  // read from the back of a classroom
// px around the panel: a 768-px-high screen needs every line for the step
constexpr int kTightMargin = 4;

}  // namespace

LessonFrame::LessonFrame(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(kTightMargin, kTightMargin, kTightMargin, kTightMargin);
    m_counter = new QLabel(this);
    m_title = new QLabel(this);
    QFont big = m_title->font();
    big.setPointSizeF(big.pointSizeF() * kTeachingFontScale * 1.2);
    big.setBold(true);
    m_title->setFont(big);
    m_title->setWordWrap(true);
    m_body = new QLabel(this);
    QFont body = m_body->font();
    body.setPointSizeF(body.pointSizeF() * kTeachingFontScale);
    m_body->setFont(body);
    m_body->setWordWrap(true);
    m_body->setTextFormat(Qt::RichText);
    m_body->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_status = new QLabel(this);
    m_status->setFont(body);
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::RichText);
    m_begin = new QPushButton(tr("Begin"), this);
    m_back = new QPushButton(tr("‹ Back"), this);
    m_showMe = new QPushButton(tr("Show me"), this);
    m_showMe->setToolTip(tr("Do this step in the explorer (undoable with Edit › Undo)"));
    m_next = new QPushButton(tr("Next ›"), this);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_begin);
    buttons->addStretch();
    buttons->addWidget(m_back);
    buttons->addWidget(m_showMe);
    buttons->addWidget(m_next);
    // The step's text scrolls in a short dock (a laptop's screen cut it off mid-instruction); the
    // buttons stay in view below it.
    auto* text = new QWidget(this);
    auto* textLayout = new QVBoxLayout(text);
    textLayout->setContentsMargins(0, 0, 0, 0);
    // The counter beside the title, not above it: one line less before the step's instruction,
    // which at 1024 x 768 scrolled out of view.
    auto* heading = new QHBoxLayout;
    heading->addWidget(m_title, 1);
    heading->addWidget(m_counter, 0, Qt::AlignRight | Qt::AlignVCenter);
    textLayout->addLayout(heading);
    textLayout->addWidget(m_body);
    textLayout->addWidget(m_status);
    textLayout->addStretch(1);
    m_scroll = new QScrollArea(this);
    m_scroll->setWidget(text);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    layout->addWidget(m_scroll, 1);
    layout->addLayout(buttons);
}

void LessonFrame::setTexts(const QString& counter, const QString& title, const QString& body,
                           const QString& status) {
    m_counter->setText(counter);
    if (m_title->text() != title) m_scroll->verticalScrollBar()->setValue(0);
    m_title->setText(title);
    m_body->setText(body);
    m_status->setText(status);
}

void LessonFrame::setButtons(const QString& beginText, bool showMe, bool back, bool next) {
    m_begin->setText(beginText);
    setEnabledKeepingFocus({{m_showMe, showMe}, {m_begin, true}, {m_back, back}, {m_next, next}});
}

}  // namespace tpg
