import { describe, expect, it, vi } from 'vitest';
import type { ChartData } from '../../datasets/vocabulary/figure.ts';
import { text } from '../../core/text.ts';
import { chartGeometry } from '../../site/figures/chart-geometry.ts';
import { layOutCategoryLabels, textWidth, wrapLabel } from '../../site/figures/category-labels.ts';
import { labelOf } from '../../site/figures/chart-labels.ts';
import { chartCsv, chartTable } from '../../site/figures/chart-table.ts';
import { incompletePeriod } from '../../scripts/static/figures.ts';
import { mapGeometry } from '../../site/figures/map-geometry.ts';
import { niceTicks, timeTicks } from '../../site/figures/scales.ts';

const chart = (rows: ChartData['rows'], more: Partial<ChartData> = {}): ChartData => ({
  name: 'test',
  title: text('Test', 'Test'),
  description: text('A test', 'Test'),
  kind: 'line',
  x: { label: text('Day', 'Dzień'), time: true },
  y: { label: text('Value', 'Wartość') },
  panels: {},
  rows,
  bands: [],
  ...more,
});

const days = (count: number, from = Date.UTC(2024, 0, 1)) =>
  Array.from({ length: count }, (_, i) => new Date(from + i * 86_400_000).toISOString().slice(0, 10));

describe('chartGeometry', () => {
  it('breaks a line where days are missing, a lone day becoming a dot', () => {
    const x = days(10);
    const rows = [...x.slice(0, 4), ...x.slice(6, 9), x[9]!].filter((_, i) => i !== 6).map((day, i) => ({ x: day, y: i }));
    const [line] = chartGeometry(chart(rows), 'en').panels[0]!.lines;
    expect(line!.d.match(/M/g)).toHaveLength(3);
    expect(line!.d).toContain('l0 0');
  });

  it('thins a long line to at most 600 points, keeping its extremes', () => {
    const rows = days(5000).map((day, i) => ({ x: day, y: i === 2500 ? 1000 : i % 7 }));
    const panel = chartGeometry(chart(rows), 'en').panels[0]!;
    expect(panel.lines[0]!.points).toBeLessThanOrEqual(600);
    expect(panel.yMax).toBe(1000);
    const tops = [...panel.lines[0]!.d.matchAll(/-?[\d.]+/g)].length;
    expect(tops).toBeLessThanOrEqual(1200);
  });

  it("draws a region's daily totals: many panels of many days, more values than a call's arguments can hold", () => {
    // 160 counters over 1,800 days: 288,000 rows, where Math.min(...values) overflowed the stack.
    const x = days(1800);
    const rows = Array.from({ length: 160 }, (_, c) => x.map((day, i) => ({ panel: `counter ${c}`, x: day, y: (i * (c + 1)) % 997 }))).flat();
    const geometry = chartGeometry(chart(rows, { y: { label: text('Bicycles per day', 'Rowery na dobę'), scale: 'shared' } }), 'en');
    expect(geometry.panels).toHaveLength(160);
    expect(geometry.panels[0]!.yMax).toBe(996);
    expect([geometry.xFirst, geometry.xLast]).toEqual([x[0], x.at(-1)]);
  });

  it('thins the tooltips as the lines, the same columns in both drawings, keeping the extremes', () => {
    const rows = ['one', 'two'].flatMap((series) => days(5000).map((day, i) => ({ x: day, y: series === 'one' && i === 2500 ? 1000 : i % 7, series })));
    const [wide, phone] = (['wide', 'phone'] as const).map((size) => chartGeometry(chart(rows), 'en', size).panels[0]!.tips);
    expect(wide!.length).toBeLessThanOrEqual(600);
    expect(wide!.length).toBeGreaterThan(300);
    expect(phone!.map((column) => column.label)).toEqual(wide!.map((column) => column.label));
    expect(wide!.some((column) => column.points.some((point) => point.value === '1,000'))).toBe(true);
    expect(wide!.every((column) => column.points.length === 2)).toBe(true);
  });

  it('draws a panel per key with its translated title, series in the same colour in every panel', () => {
    const rows = ['a', 'b'].flatMap((panel) => ['one', 'two'].flatMap((series) => days(3).map((x, i) => ({ x, y: i, series, panel }))));
    const geometry = chartGeometry(chart(rows, { panels: { a: text('Panel A', 'Panel A po polsku') } }), 'pl');
    expect(geometry.panels.map((panel) => panel.title)).toEqual(['Panel A po polsku', 'b']);
    expect(geometry.series.map((series) => series.key)).toEqual(['one', 'two']);
    expect(geometry.panels.map((panel) => panel.lines.map((line) => line.series))).toEqual([
      [0, 1],
      [0, 1],
    ]);
  });

  it('clips bands to the panel and starts bars at zero', () => {
    const bands = [
      { panel: 'p', from: 0, to: 20, color: '#57B108', label: 'Good' },
      { panel: 'p', from: 20, to: 1000, color: '#990000', label: 'Bad' },
    ];
    const geometry = chartGeometry(
      chart(
        days(5).map((x, i) => ({ x, y: 10 + i * 5, panel: 'p' })),
        { bands },
      ),
      'en',
    );
    const panel = geometry.panels[0]!;
    for (const band of panel.bands) {
      expect(band.y).toBeGreaterThanOrEqual(geometry.plot.top);
      expect(band.y + band.height).toBeLessThanOrEqual(geometry.plot.bottom + 0.1);
    }
    expect(geometry.bandLegend.map((band) => band.label)).toEqual(['Good', 'Bad']);
    const bars = chartGeometry(
      chart(
        [
          { x: '2024', y: 900 },
          { x: '2025', y: 1000 },
        ],
        { kind: 'bar', x: { label: text('Season', 'Sezon'), time: false } },
      ),
      'en',
    );
    expect(bars.panels[0]!.yTicks[0]!.label).toBe('0');
    expect(bars.panels[0]!.bars).toHaveLength(2);
  });
});

describe('readable charts', () => {
  const months = ['2025-07-01', '2025-08-01', '2025-09-01'];

  it('find the last period incomplete only when the data ends before its last day', () => {
    const rows = months.map((x, i) => ({ x, y: i }));
    expect(incompletePeriod(rows, 'month', '2025-09-18')).toEqual({ x: '2025-09-01', through: '2025-09-18' });
    expect(incompletePeriod(rows, 'month', '2025-09-30')).toBeUndefined();
    expect(incompletePeriod([{ x: '2025-09-29', y: 1 }], 'week', '2025-10-01')).toEqual({ x: '2025-09-29', through: '2025-10-01' });
    expect(incompletePeriod([{ x: '2025-09-29', y: 1 }], 'week', '2025-10-05')).toBeUndefined();
  });

  it('draw an incomplete last period apart, in the tooltips and the table too', () => {
    const data = chart(
      months.map((x, i) => ({ x, y: 10 + i })),
      { x: { label: text('Month', 'Miesiąc'), time: true, period: 'month' }, incomplete: { x: '2025-09-01', through: '2025-09-18' } },
    );
    const geometry = chartGeometry(data, 'en');
    const panel = geometry.panels[0]!;
    expect(panel.lines[0]!.points).toBe(2);
    expect(panel.incompleteLines).toHaveLength(1);
    expect(panel.incompleteSpan).toBeDefined();
    expect(geometry.incomplete).toEqual({ label: 'September 2025', through: '18 September 2025' });
    expect(panel.tips.at(-1)!.label).toBe('September 2025 (incomplete)');
    const table = chartTable(data, 'en');
    expect(table.rows.map((row) => row.incomplete)).toEqual([false, false, true]);
    expect(chartCsv(table).split('\r\n').at(-2)).toBe('2025-09-01,12,incomplete: 2025-09-18');
  });

  it('share one y scale across panels when declared, and say when panels have their own', () => {
    const rows = [...days(3).map((x, i) => ({ x, y: i, panel: 'a' })), ...days(3).map((x, i) => ({ x, y: 100 * i, panel: 'b' }))];
    const own = chartGeometry(chart(rows), 'en');
    expect(own.ownScales).toBe(true);
    expect(own.panels[0]!.yTicks.at(-1)!.label).not.toBe(own.panels[1]!.yTicks.at(-1)!.label);
    const shared = chartGeometry(chart(rows, { y: { label: text('Bicycles per day', 'Rowery na dobę'), scale: 'shared' } }), 'en');
    expect(shared.ownScales).toBe(false);
    expect(shared.panels[0]!.yTicks).toEqual(shared.panels[1]!.yTicks);
    expect(shared.panels[0]!.axisTitle).toBe('Bicycles per day');
  });

  it('title a y axis with what the title above it does not say, a unit the data names its panel with filled in', () => {
    const byData = ['PM10 (µg/m³)', 'XYZ'].flatMap((panel) => days(3).map((x, i) => ({ x, y: i, panel })));
    const weekly = chartGeometry(chart(byData, { y: { label: text('Weekly mean, {unit}', 'Średnia tygodniowa, {unit}') } }), 'pl');
    expect(weekly.panels.map((panel) => panel.axisTitle)).toEqual(['Średnia tygodniowa, µg/m³', 'Średnia tygodniowa']);
    // A declared panel name is what its values are: said in the panel's title, not again on its axis.
    const rides = chartGeometry(
      chart(
        days(3).map((x, i) => ({ x, y: i, panel: 'rides' })),
        { panels: { rides: text('Rides', 'Przejazdy') } },
      ),
      'en',
    );
    expect(rides.panels[0]).toMatchObject({ title: 'Rides', valueName: 'Rides' });
    expect(rides.panels[0]!.axisTitle).toBeUndefined();
    // A lone panel's title is the chart's.
    const lone = chartGeometry(
      chart(
        days(3).map((x, i) => ({ x, y: i })),
        { title: text('Rides per day', 'Przejazdy dziennie'), y: { label: text('Rides per day', 'Przejazdy na dobę') } },
      ),
      'en',
    );
    expect(lone.panels[0]!.axisTitle).toBeUndefined();
    expect(lone.panels[0]!.valueName).toBe('Rides per day');
  });

  it('lay out category labels apart and inside the drawing: wrapped, on two rows, or every other one', () => {
    expect(wrapLabel('nieruchomość gruntowa niezabudowana', 100)).toEqual(['nieruchomość', 'gruntowa', 'niezabudowana']);
    expect(wrapLabel('Praga-Północ', 60)).toEqual(['Praga-', 'Północ']);
    expect(wrapLabel('niezabudowana', 60)).toBeUndefined();
    // At least DejaVu Sans's widths (measured in Chromium at 12 px), the widest of the usual fonts.
    expect(textWidth('nieruchomość')).toBeGreaterThanOrEqual(84.3);
    expect(textWidth('niezabudowana')).toBeGreaterThanOrEqual(94.3);
    const slots = (count: number, slot: number) => Array.from({ length: count }, (_, i) => 40 + (i + 0.5) * slot);
    const apart = (layout: ReturnType<typeof layOutCategoryLabels>, width: number) =>
      layout.labels.every((label) => {
        const half = Math.max(...label.lines.map((line) => textWidth(line))) / 2;
        const next = layout.labels.find((other) => other.row === label.row && other.x > label.x);
        const nextHalf = next ? Math.max(...next.lines.map((line) => textWidth(line))) / 2 : 0;
        return label.x - half >= 0 && label.x + half <= width && (!next || label.x + half < next.x - nextHalf);
      });
    const short = layOutCategoryLabels(['primary market', 'secondary market'], slots(2, 200), 200, 480);
    expect(short.rowLines).toEqual([1]);
    const types = ['nieruchomość budynkowa', 'nieruchomość gruntowa niezabudowana', 'nieruchomość gruntowa zabudowana', 'nieruchomość lokalowa'];
    const phone = layOutCategoryLabels(types, slots(4, 67), 67, 320);
    expect(phone.rowLines).toHaveLength(2);
    expect(phone.labels.map((label) => label.index)).toEqual([0, 1, 2, 3]);
    expect(apart(phone, 320)).toBe(true);
    const districts = Array.from({ length: 18 }, (_, i) => `Dzielnica ${'x'.repeat(i % 5)}`);
    const many = layOutCategoryLabels(districts, slots(18, 15), 15, 320);
    expect(many.labels.length).toBeLessThan(18);
    expect(many.labels[0]!.index).toBe(0);
    expect(apart(many, 320)).toBe(true);
  });

  it('name values in the page’s language, a term with a unit too, and mark unknown ones with their language', () => {
    const data = { panels: {}, labels: { Temperatura: text('Temperature', 'Temperatura'), Mróz: text('Frost', 'Mróz') }, valuesLanguage: 'pl' as const };
    expect(labelOf(data, 'Temperatura (°C)', 'en')).toEqual({ text: 'Temperature (°C)' });
    expect(labelOf(data, 'Mróz', 'en')).toEqual({ text: 'Frost' });
    expect(labelOf(data, 'Odczuwalna (°C)', 'en')).toEqual({ text: 'Odczuwalna (°C)', lang: 'pl' });
    expect(labelOf(data, 'Odczuwalna (°C)', 'pl')).toEqual({ text: 'Odczuwalna (°C)' });
  });
});

describe('drawing a chart', () => {
  it('makes each date and number formatter once, not once per point', () => {
    // A formatter holds its locale's data in native memory the collector does not weigh: one per
    // label of a chart of 68 thousand points took the site build's peak past a gigabyte.
    const dates = vi.spyOn(Intl, 'DateTimeFormat');
    const numbers = vi.spyOn(Intl, 'NumberFormat');
    try {
      const rows = days(2000).flatMap((day, i) => ['a', 'b', 'c'].map((series) => ({ x: day, y: (i * 7) % 1000, series })));
      for (const lang of ['en', 'pl'] as const) chartGeometry(chart(rows, { name: 'many' }), lang);
      chartGeometry(chart(rows, { name: 'again' }), 'en');
      expect(dates.mock.calls.length).toBeLessThan(20);
      expect(numbers.mock.calls.length).toBeLessThan(20);
    } finally {
      dates.mockRestore();
      numbers.mockRestore();
    }
  });
});

describe('axes', () => {
  it('tick round values and calendar boundaries', () => {
    expect(niceTicks(0, 87, 5).ticks).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(0.1, 0.28, 4).ticks).toEqual([0.1, 0.15, 0.2, 0.25, 0.3]);
    // Air pressure: steps of 2.5 above 1,000 are labelled as they are, not rounded to uneven whole numbers.
    const pressure = chartGeometry(
      chart([
        { x: '2024-01-01', y: 1009 },
        { x: '2024-01-02', y: 1023 },
      ]),
      'en',
    );
    expect(pressure.panels[0]!.yTicks.map((tick) => tick.label)).toEqual(['1,007.5', '1,010', '1,012.5', '1,015', '1,017.5', '1,020', '1,022.5', '1,025']);
    const ticks = timeTicks(Date.UTC(2024, 9, 1), Date.UTC(2025, 8, 30), 6, 'pl');
    expect(ticks.every((tick) => new Date(tick.value).getUTCDate() === 1)).toBe(true);
    expect(ticks[0]!.label).toMatch(/2024/);
  });

  it('tick a day of instants on the hour, naming the day at midnight; days stay days', () => {
    const from = Date.UTC(2025, 9, 1, 7, 20);
    const ticks = timeTicks(from, from + 20 * 3_600_000, 6, 'en', true);
    expect(ticks.map((tick) => tick.label)).toEqual(['12:00', '18:00', '2 Oct']);
    expect(timeTicks(from, from + 20 * 3_600_000, 6, 'pl', true)[2]!.label).toBe('2 paź');
    expect(timeTicks(Date.UTC(2025, 9, 1), Date.UTC(2025, 9, 2), 6, 'en').map((tick) => tick.label)).toEqual(['1 Oct', '2 Oct']);
    const hours = chartGeometry(
      chart([
        { x: '2025-10-01T10:00:00Z', y: 1 },
        { x: '2025-10-01T12:00:00Z', y: 2 },
      ]),
      'en',
    ).panels[0]!.xTicks;
    expect(hours.map((tick) => tick.label)).toEqual(['10:00', '11:00', '12:00']);
  });
});

describe('mapGeometry', () => {
  it('projects every place inside the map, with a graticule and a scale bar', () => {
    const places = [
      { id: 'a', name: 'A', lon: 20.9, lat: 52.1 },
      { id: 'b', name: 'B', lon: 21.1, lat: 52.3 },
      { id: 'c', name: 'C', lon: 21.0, lat: 52.2 },
    ];
    const geometry = mapGeometry([{ dataset: 'x', datasetTitle: text('X', 'X'), layer: { name: 'l', title: text('L', 'L'), places } }], 'en')!;
    for (const point of geometry.layers[0]!.points) {
      expect(point.x).toBeGreaterThan(0);
      expect(point.x).toBeLessThan(geometry.width);
      expect(point.y).toBeGreaterThan(0);
      expect(point.y).toBeLessThan(geometry.height);
    }
    // North is up, east is right.
    const [a, b] = geometry.layers[0]!.points;
    expect(b!.x).toBeGreaterThan(a!.x);
    expect(b!.y).toBeLessThan(a!.y);
    expect(geometry.meridians.length).toBeGreaterThan(1);
    expect([1, 2, 5, 10, 20]).toContain(geometry.scaleBar.km);
    expect(mapGeometry([], 'en')).toBeUndefined();
    // Degrees are written as the page's language writes decimals.
    expect(geometry.meridians.map((line) => line.label)).toContain('20.9° E');
    const polish = mapGeometry([{ dataset: 'x', datasetTitle: text('X', 'X'), layer: { name: 'l', title: text('L', 'L'), places } }], 'pl')!;
    expect(polish.meridians.map((line) => line.label)).toContain('20,9° E');
  });
});
