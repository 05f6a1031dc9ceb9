import { escapeHtml } from '../../core/text.ts';
import { placeLabel } from '../figures/map-places.ts';
import { decodeUriPart } from './uri-part.ts';

/**
 * The maps of the site (PlacesMap.astro) in the browser. Every map is first an SVG drawn at build
 * time; a tap or click on one of its places names it below the map, since a tooltip needs a mouse.
 * Built with tiles, the figure says so (`data-tiles`) and holds its layers as JSON: Leaflet is
 * loaded then, and a map over the tiles is laid on the SVG, hidden until a tile has loaded. If none
 * loads (offline, a blocked or broken tile server), the Leaflet map is removed and the SVG stays.
 * `data-map-state` says which one shows: `drawn` (tiles awaited), `tiles`, or `offline`.
 */

/** One map layer as PlacesMap.astro writes it for the page. */
export interface LeafletLayer {
  /** `<data set>/<layer>`. */
  readonly key: string;
  readonly dataset: string;
  readonly title: string;
  readonly datasetTitle: string;
  /** The data set's page. */
  readonly href: string;
  readonly colour: string;
  /** Shown at first: the page's own data set's layers, or every layer on the city map. */
  readonly own: boolean;
  /** Places with a figure, drawn as labelled circles rather than clustered markers. */
  readonly valued: boolean;
  /** Figures on the city map, among every data set's places: hidden at first on a phone, where their circles would cover those places. */
  readonly crowds: boolean;
  /** [lon, lat, name, figure ('' for none), short figure for the circle, by line]. */
  readonly places: readonly (readonly [number, number, string, string, readonly string[]])[];
}

/** How long a map waits for its first tile before it gives up on tiles. */
const FIRST_TILE_WAIT_MS = 15_000;

export function mountMap(figure: HTMLElement): void {
  nameTappedPlaces(figure);
  const data = figure.querySelector('script[data-map-layers]')?.textContent;
  if (!figure.dataset.tiles || !data) return;
  void mountLeaflet(figure, figure.dataset.tiles, figure.dataset.attribution ?? '', JSON.parse(data) as LeafletLayer[]).catch((error: unknown) => {
    // Leaflet failed to load or start: the SVG is still the map.
    figure.dataset.mapState = 'offline';
    console.warn('odsnap: the map over tiles could not start, the map drawn offline stays', error);
  });
}

/** The SVG's places name themselves below the map on a tap or click (touch screens have no hover). */
function nameTappedPlaces(figure: HTMLElement): void {
  const picked = figure.querySelector<HTMLElement>('[data-map-picked]');
  const svg = figure.querySelector('svg.places');
  if (!picked || !svg) return;
  svg.addEventListener('click', (event) => {
    const title = (event.target as Element).closest('g.layer > *')?.querySelector('title')?.textContent;
    picked.textContent = title ?? '';
  });
}

async function mountLeaflet(figure: HTMLElement, tiles: string, attribution: string, layers: readonly LeafletLayer[]): Promise<void> {
  const frame = figure.querySelector<HTMLElement>('.map-frame');
  if (!frame) return;
  const L = await loadLeaflet();
  const holder = document.createElement('div');
  holder.className = 'leaflet-holder';
  frame.append(holder);

  // Readers who ask for less motion get zooms and clusters that jump rather than glide.
  const still = matchMedia('(prefers-reduced-motion: reduce)').matches;
  const map = L.map(holder, { scrollWheelZoom: false, zoomAnimation: !still, fadeAnimation: !still, markerZoomAnimation: !still });
  // A wheel scrolls the page until the map is clicked or focused, so a long page is not caught by it.
  map.on('focus click', () => map.scrollWheelZoom.enable());
  map.on('blur', () => map.scrollWheelZoom.disable());

  const base = L.tileLayer(tiles, { attribution, maxZoom: 19, crossOrigin: false });
  let loaded = 0;
  // Whether the Leaflet map is still there: after giving up, #<data set> still scrolls to the map drawn offline.
  let live = true;
  const giveUp = () => {
    if (loaded || !live) return;
    live = false;
    map.remove();
    holder.remove();
    figure.dataset.mapState = 'offline';
  };
  const waiting = setTimeout(giveUp, FIRST_TILE_WAIT_MS);
  base.on('tileload', () => {
    if (loaded++ === 0) {
      clearTimeout(waiting);
      figure.dataset.mapState = 'tiles';
      frame.classList.add('tiled');
    }
  });
  // Every tile in view settled and none loaded: tiles are out of reach. Leaflet fires `load` from
  // its tile handler and goes on using the map after it, so removing the map within the handler
  // broke that handler (a TypeError on every page offline): the map goes once it has returned.
  base.on('load', () => {
    if (!loaded) {
      clearTimeout(waiting);
      setTimeout(giveUp);
    }
  });
  base.addTo(map);

  const phone = matchMedia('(max-width: 40rem)').matches;
  const clusters = sharedClusters(L, !still).addTo(map);
  const overlays: Record<string, import('leaflet').Layer> = {};
  const bounds: Record<string, [number, number][]> = {};
  for (const layer of layers) {
    const group = layer.valued ? L.featureGroup(layer.places.map((place) => valueMarker(L, layer, place))) : clusteredLayer(L, clusters, layer);
    overlays[
      `<span class="map-swatch" style="background:${layer.colour}"></span>${escapeHtml(layer.title)} <span class="muted">(${escapeHtml(layer.datasetTitle)})</span>`
    ] = group;
    // On a phone the city map's figures (46 px circles) would bury every place: the layer button shows them.
    if (layer.own && !(phone && layer.crowds)) group.addTo(map);
    (bounds[layer.dataset] ??= []).push(...layer.places.map(([lon, lat]): [number, number] => [lat, lon]));
  }
  L.control.layers(undefined, overlays, { collapsed: phone }).addTo(map);
  // Above the credit in the same corner: a credit too long for one line (OpenStreetMap's, on a
  // phone) wraps upwards and would cover a scale bar in the other corner.
  L.control.scale({ imperial: false, position: 'bottomright' }).addTo(map);

  // On the city map, #<data set> focuses that data set's places; elsewhere the page's own places.
  const named = () => bounds[decodeUriPart(location.hash.slice(1))];
  const fitPlaces = (animate: boolean) => {
    const points = named() ?? layers.filter((layer) => layer.own).flatMap((layer) => layer.places.map(([lon, lat]): [number, number] => [lat, lon]));
    if (live && points.length) map.fitBounds(L.latLngBounds(points), { padding: [24, 24], maxZoom: 16, animate });
  };
  const focus = () => {
    fitPlaces(true);
    if (named()) figure.scrollIntoView({ block: 'start' });
  };
  focus();
  addEventListener('hashchange', focus);

  // The box takes its final size only after the map is made (on a phone the frame grows once a
  // tile shows, see .map-frame.tiled), and again when the window turns: Leaflet measures its box
  // only when told, or it lays the places out for the old size. Until the reader moves the map,
  // its first view is fitted again to the new box.
  let touched = false;
  for (const type of ['pointerdown', 'wheel', 'keydown']) holder.addEventListener(type, () => (touched = true), { passive: true });
  new ResizeObserver(() => {
    if (!live) return;
    map.invalidateSize({ animate: false });
    if (!touched) fitPlaces(false);
  }).observe(holder);
}

/** Leaflet with its marker clustering, and their CSS, bundled with the site: nothing comes from elsewhere. */
async function loadLeaflet() {
  const [leaflet] = await Promise.all([import('leaflet'), import('leaflet/dist/leaflet.css'), import('leaflet.markercluster/dist/MarkerCluster.css')]);
  // The plugin is a script that extends a global `L`; the module namespace cannot be extended, a copy can.
  const L = { ...leaflet } as typeof import('leaflet');
  (globalThis as { L?: unknown }).L = L;
  await import('leaflet.markercluster');
  return L;
}

type Leaflet = Awaited<ReturnType<typeof loadLeaflet>>;

/** A place's marker and the colour of its layer, which the cluster it falls in shows. */
const colourOf = new WeakMap<import('leaflet').Marker, string>();

/**
 * One cluster group for the places of every layer: a group per layer would pile its clusters on
 * the other layers' wherever data sets share streets. A cluster shows its layers' colours as
 * shares of a circle, each at least an eighth, so that a station among a hundred sales shows.
 */
function sharedClusters(L: Leaflet, animate: boolean) {
  return L.markerClusterGroup({
    animate,
    showCoverageOnHover: false,
    maxClusterRadius: 40,
    iconCreateFunction: (group) => {
      const markers = group.getAllChildMarkers();
      const counts = new Map<string, number>();
      for (const colour of markers.map((marker) => colourOf.get(marker) ?? '#555')) counts.set(colour, (counts.get(colour) ?? 0) + 1);
      const shares = new Map([...counts].map(([colour, count]) => [colour, Math.max(count / markers.length, 1 / 8)]));
      const whole = [...shares.values()].reduce((sum, share) => sum + share, 0);
      const stops: string[] = [];
      let from = 0;
      for (const [colour, share] of shares) {
        const to = from + share / whole;
        stops.push(`${colour} ${from}turn ${to}turn`);
        from = to;
      }
      const background = counts.size === 1 ? [...counts.keys()][0] : `conic-gradient(${stops.join(', ')})`;
      return L.divIcon({ className: 'map-cluster', html: `<span style="background:${background}">${markers.length}</span>`, iconSize: L.point(34, 34) });
    },
  });
}

/** A layer's places as a layer of their own for the layer button, clustered in the shared group while it is on the map. */
function clusteredLayer(L: Leaflet, clusters: import('leaflet').MarkerClusterGroup, layer: LeafletLayer) {
  // Places are HTML markers rather than SVG circles: a tap on a circle of Leaflet's SVG opens no
  // popup in Chromium on a touch screen, a tap on a marker does.
  const icon = L.divIcon({ className: 'map-point', html: `<span style="background:${layer.colour}"></span>`, iconSize: L.point(18, 18) });
  const markers = layer.places.map(([lon, lat, name, figure]) => {
    const marker = L.marker([lat, lon], { icon, title: name, keyboard: true }).bindPopup(popup(layer, name, figure));
    colourOf.set(marker, layer.colour);
    return marker;
  });
  const Clustered = L.Layer.extend({
    onAdd: () => clusters.addLayers(markers),
    onRemove: () => clusters.removeLayers(markers),
  });
  return new Clustered() as import('leaflet').Layer;
}

function valueMarker(L: Leaflet, layer: LeafletLayer, [lon, lat, name, figure, badge]: LeafletLayer['places'][number]) {
  const lines = badge.map((line) => `<span>${escapeHtml(line)}</span>`).join('');
  const icon = L.divIcon({ className: 'map-value', html: `<span style="background:${layer.colour}">${lines}</span>`, iconSize: L.point(46, 46) });
  return L.marker([lat, lon], { icon, title: placeLabel(name, figure), riseOnHover: true }).bindPopup(popup(layer, name, figure));
}

const popup = (layer: LeafletLayer, name: string, figure: string) =>
  `<strong class="map-popup-name">${escapeHtml(name)}</strong>${figure ? `<br>${escapeHtml(figure)}` : ''}<br><a href="${escapeHtml(layer.href)}">${escapeHtml(layer.title)}</a> <span class="muted">(${escapeHtml(layer.datasetTitle)})</span>`;
