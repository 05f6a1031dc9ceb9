import type { Chart } from '../vocabulary/figure.ts';
import { text } from '../../core/text.ts';

export const charts: readonly Chart[] = [
  {
    name: 'monthly-market',
    title: text('The market month by month', 'Rynek miesiąc po miesiącu'),
    description: text(
      'Transactions per month of their legal-basis document, and their median gross price, one panel each.',
      'Transakcje w miesiącu dokumentu stanowiącego podstawę prawną i ich mediana ceny brutto, po jednym panelu.',
    ),
    sql: `SELECT panel, x, y FROM (
            SELECT 'transactions' AS panel, 1 AS o, date_trunc('month', document_date)::DATE AS x, count(*)::DOUBLE AS y FROM rcn_transactions GROUP BY ALL
            UNION ALL
            SELECT 'median-price', 2, date_trunc('month', document_date)::DATE, median(gross_price)::DOUBLE FROM rcn_transactions GROUP BY ALL)
          ORDER BY o, x`,
    kind: 'line',
    x: { label: text('Month', 'Miesiąc'), time: true },
    y: { label: text('Value', 'Wartość') },
    panels: {
      transactions: text('Transactions', 'Transakcje'),
      'median-price': text('Median gross price, PLN', 'Mediana ceny brutto, zł'),
    },
  },
];
