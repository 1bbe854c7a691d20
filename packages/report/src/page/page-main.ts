// Runs in the report page: reads the embedded payload and wires the tabs. Inlined through its source
// text, so it uses only its parameters and standard web APIs.
import type { ReportPayload } from "../report-payload.js";
import type { PageHelpers } from "./page-helpers.js";

export type PageView = (container: HTMLElement, payload: ReportPayload, helpers: PageHelpers) => void;

export interface PageViews {
  overview: PageView;
  timeline: PageView;
  spans: PageView;
  operators: PageView;
  memory: PageView;
  gradients: PageView;
  comparison: PageView;
}

export function startPage(helpers: PageHelpers, views: PageViews): void {
  const dataNode = document.getElementById("cg-report-data");
  const root = document.getElementById("cg-report");
  if (!dataNode || !root) return;
  const payload = JSON.parse(dataNode.textContent ?? "{}") as ReportPayload;

  const tabs: Array<{ id: keyof PageViews; label: string }> = [
    { id: "overview", label: "Overview" },
    { id: "timeline", label: "Timeline" },
    { id: "spans", label: "Span costs" },
    { id: "operators", label: "Operators" },
    { id: "memory", label: "Memory" },
    { id: "gradients", label: "Gradients" },
  ];
  if (payload.comparison) tabs.push({ id: "comparison", label: "Comparison" });

  // Long strings arrive cut; a click (or Enter) on one shows its full value in place.
  const fullStrings = payload.full_strings ?? {};
  function revealOnDemand(container: HTMLElement): void {
    const walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT);
    const hits: Text[] = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.nodeValue ?? "";
      if (text.includes("… (+") && Object.keys(fullStrings).some((cut) => text.includes(cut)))
        hits.push(node as Text);
    }
    for (const node of hits) {
      const text = node.nodeValue ?? "";
      const cut = Object.keys(fullStrings).find((key) => text.includes(key));
      const full = cut === undefined ? undefined : fullStrings[cut];
      if (cut === undefined || full === undefined) continue;
      const at = text.indexOf(cut);
      const button = helpers.element(
        "button",
        { type: "button", class: "cut-string", title: "Show the full value" },
        [cut],
      );
      button.addEventListener("click", () => {
        const shown = helpers.element("span", { class: "full-string" }, [full]);
        button.replaceWith(shown);
      });
      const after = node.splitText(at);
      after.nodeValue = text.slice(at + cut.length);
      node.parentNode?.insertBefore(button, after);
    }
  }

  const health = payload.candidate.health;
  const header = helpers.element("header", { class: "top" }, [
    helpers.element("h1", {}, [payload.title]),
    helpers.element(
      "span",
      { class: health.trusted ? "badge ok" : "badge bad", "data-testid": "verdict-badge" },
      [health.trusted ? "TRUSTED" : "UNTRUSTED"],
    ),
  ]);
  const tabList = helpers.element("div", { role: "tablist", "aria-label": "Report views", class: "tabs" });
  const panels = helpers.element("main");
  const buttons: HTMLButtonElement[] = [];
  const panelNodes: HTMLElement[] = [];
  const rendered = new Set<string>();

  function select(index: number, focus: boolean): void {
    tabs.forEach((tab, position) => {
      const active = position === index;
      const button = buttons[position];
      const panel = panelNodes[position];
      if (!button || !panel) return;
      button.setAttribute("aria-selected", String(active));
      button.tabIndex = active ? 0 : -1;
      panel.hidden = !active;
      if (active && !rendered.has(tab.id)) {
        rendered.add(tab.id);
        try {
          views[tab.id](panel, payload, helpers);
          revealOnDemand(panel);
        } catch (error) {
          panel.append(helpers.note("This view could not be drawn: " + String(error)));
          throw error;
        }
      }
    });
    const chosen = tabs[index];
    if (chosen && location.hash !== "#" + chosen.id) history.replaceState(null, "", "#" + chosen.id);
    if (focus) buttons[index]?.focus();
  }

  tabs.forEach((tab, index) => {
    const button = helpers.element(
      "button",
      {
        type: "button",
        role: "tab",
        id: "tab-" + tab.id,
        "aria-controls": "panel-" + tab.id,
        "aria-selected": "false",
      },
      [tab.label],
    );
    button.addEventListener("click", () => select(index, false));
    button.addEventListener("keydown", (event) => {
      const last = tabs.length - 1;
      let next = -1;
      if (event.key === "ArrowRight") next = index === last ? 0 : index + 1;
      else if (event.key === "ArrowLeft") next = index === 0 ? last : index - 1;
      else if (event.key === "Home") next = 0;
      else if (event.key === "End") next = last;
      if (next >= 0) {
        event.preventDefault();
        select(next, true);
      }
    });
    const panel = helpers.element("section", {
      role: "tabpanel",
      id: "panel-" + tab.id,
      "aria-labelledby": "tab-" + tab.id,
      class: "panel",
      tabindex: "0",
    });
    panel.hidden = true;
    buttons.push(button);
    panelNodes.push(panel);
    tabList.append(button);
    panels.append(panel);
  });

  root.replaceChildren(header, tabList, panels);
  revealOnDemand(header);
  const fromHash = tabs.findIndex((tab) => "#" + tab.id === location.hash);
  select(Math.max(fromHash, 0), false);
  window.addEventListener("hashchange", () => {
    const index = tabs.findIndex((tab) => "#" + tab.id === location.hash);
    if (index >= 0) select(index, false);
  });
}
