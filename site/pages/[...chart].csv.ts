/// <reference types="astro/client" />
import type { APIRoute, GetStaticPaths } from 'astro';
import type { ChartData } from '../../datasets/vocabulary/figure.ts';
import { languages, type Language } from '../../core/text.ts';
import { datasets } from '../docs/site-docs.ts';
import { chartCsv, chartCsvName, chartTable } from '../figures/chart-table.ts';
import { localePath, routes } from '../routes.ts';
import { siteSnapshot } from '../snapshot/tree-snapshot.ts';

/** Each chart's rows as CSV beside its data-set page, in each language: the table the page shows (figures/chart-table.ts). */
export const getStaticPaths = (async () => {
  const snapshot = siteSnapshot(datasets);
  if (!snapshot) return [];
  return languages.flatMap((lang) =>
    datasets.flatMap((dataset) =>
      (snapshot.datasets.get(dataset.name)?.charts ?? []).map((chart) => ({
        params: { chart: `${localePath(lang, routes.datasetPage(dataset))}${chartCsvName(chart).replace(/\.csv$/, '')}` },
        props: { lang, chart },
      })),
    ),
  );
}) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props }) => {
  const { lang, chart } = props as { lang: Language; chart: ChartData };
  return new Response(chartCsv(chartTable(chart, lang)), { headers: { 'content-type': 'text/csv; charset=utf-8' } });
};
